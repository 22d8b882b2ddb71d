module github.com/tether-dev/tether/hack/tools/goaws

go 1.26.0

require (
	github.com/Admiral-Piett/goaws v0.4.5
	github.com/aws/aws-sdk-go v1.34.0
	github.com/sirupsen/logrus v1.9.0
)

require (
	github.com/ghodss/yaml v1.0.0 // indirect
	github.com/gorilla/mux v1.8.0 // indirect
	github.com/jmespath/go-jmespath v0.4.0 // indirect
	github.com/kr/text v0.2.0 // indirect
	golang.org/x/sys v0.5.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)
