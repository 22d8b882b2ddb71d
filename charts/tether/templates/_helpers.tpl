{{/* The chart's name, or nameOverride. */}}
{{- define "tether.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The prefix of every object's name: fullnameOverride, else the release
name with the chart's name added unless the release name holds it already. */}}
{{- define "tether.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "tether.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The manager's ServiceAccount: serviceAccount.name, else the chart's. */}}
{{- define "tether.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default (printf "%s-controller-manager" (include "tether.fullname" .)) -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "tether.labels" -}}
app.kubernetes.io/name: {{ include "tether.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The manager's pods, as config/manager selects them: two releases in
one namespace select only their own. */}}
{{- define "tether.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tether.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end -}}

{{/* The metrics Service's name, which the ServiceMonitor's certificate
check uses too. */}}
{{- define "tether.metricsServiceName" -}}
{{ include "tether.fullname" . }}-controller-manager-metrics
{{- end -}}

{{/* Where a metrics.certSecret is mounted. */}}
{{- define "tether.metricsCertPath" -}}
/tmp/k8s-metrics-server/metrics-certs
{{- end -}}
