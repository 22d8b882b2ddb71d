{{/* The prefix of every object's name: the release name, with the chart's
name added unless the release name holds it already. */}}
{{- define "tether.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tether.serviceAccountName" -}}
{{ include "tether.fullname" . }}-controller-manager
{{- end -}}

{{/* Labels of every object. */}}
{{- define "tether.labels" -}}
app.kubernetes.io/name: tether
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The manager's pods, as config/manager selects them. */}}
{{- define "tether.selectorLabels" -}}
app.kubernetes.io/name: tether
app.kubernetes.io/component: manager
{{- end -}}
