package plan

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	awsv1alpha1 "github.com/tether-dev/tether/api/aws/v1alpha1"
)

// Encryption at rest: the AWS owned key (SSE off), the AWS managed KMS key,
// or a customer managed one.

// featureSSE names encryption at rest where an endpoint may lack it.
const featureSSE = "sseSpecification"

// StepSSE changes the encryption at rest.
const StepSSE StepKind = "SSE"

func init() {
	register(&feature{
		name:  featureSSE,
		kinds: []StepKind{StepSSE},
		uses:  func(spec *awsv1alpha1.DynamoDBTableSpec) bool { return spec.SSESpecification != nil },
		desire: func(s source, want *Table) {
			if e := s.SSESpecification; e != nil {
				want.SSE = &SSE{Enabled: e.SSEEnabled, KMSKey: e.KMSMasterKeyID}
			}
		},
		observe: func(d *types.TableDescription, have *Table) {
			have.SSE = &SSE{}
			if s := d.SSEDescription; s != nil && (s.Status == types.SSEStatusEnabled || s.Status == types.SSEStatusEnabling) {
				have.SSE = &SSE{Enabled: true, KMSKey: aws.ToString(s.KMSMasterKeyArn)}
			}
		},
		hide: func(have *Table) { have.SSE = nil },
		create: func(s source, _ *Table, in *dynamodb.CreateTableInput) {
			if e := s.SSESpecification; e != nil {
				in.SSESpecification = sseSpecification(e.SSEEnabled, e.KMSMasterKeyID)
			}
		},
		passes: []pass{{atSSE, (*planner).updateSSE}},
	})
}

func (p *planner) updateSSE() {
	want, cur := p.want.SSE, p.cur.SSE
	if want == nil || cur == nil || (want.Enabled == cur.Enabled && (!want.Enabled || kmsKeyMatches(want.KMSKey, cur.KMSKey))) {
		return
	}
	in := p.updateTable()
	in.SSESpecification = sseSpecification(want.Enabled, want.KMSKey)
	desc := "use the AWS owned encryption key"
	if want.Enabled {
		desc = "encrypt with the AWS managed KMS key"
		if want.KMSKey != "" {
			desc = "encrypt with KMS key " + want.KMSKey
		}
	}
	p.add(Step{Kind: StepSSE, Description: desc, Table: in})
	p.cur.SSE = want
}

// sseSpecification is how CreateTable and UpdateTable say it: KMS with
// the key named, or the AWS managed key when none is.
func sseSpecification(enabled bool, kmsKey string) *types.SSESpecification {
	out := &types.SSESpecification{Enabled: aws.Bool(enabled)}
	if enabled {
		out.SSEType = types.SSETypeKms
		if kmsKey != "" {
			out.KMSMasterKeyId = aws.String(kmsKey)
		}
	}
	return out
}

// kmsKeyMatches compares the key the spec names (id, ARN or alias) with the
// ARN AWS reports. An alias cannot be resolved without KMS, so it matches.
func kmsKeyMatches(want, haveARN string) bool {
	switch {
	case want == "" || strings.HasPrefix(want, "alias/") || strings.Contains(want, ":alias/"):
		return true
	case strings.HasPrefix(want, "arn:"):
		return want == haveARN
	default:
		return strings.HasSuffix(haveARN, "key/"+want)
	}
}
