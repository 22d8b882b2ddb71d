package access

import "regexp"

// partitions are AWS's partitions and the Regions each holds, as the AWS
// SDKs' own partition metadata matches them (aws-sdk-go-v2
// internal/endpoints/awsrulesfn/partitions.json, each partition's id and
// regionRegex). Tether needs them twice: a principal of another partition
// is another account whatever its digits (arn:aws-cn:iam::<the same
// twelve digits> is not the table's account), and a Region no partition
// holds is none AWS sends events about.
var partitions = []struct {
	id      string
	regions *regexp.Regexp
}{
	{"aws", regexp.MustCompile(`^(us|eu|ap|sa|ca|me|af|il|mx)\-\w+\-\d+$`)},
	{"aws-cn", regexp.MustCompile(`^cn\-\w+\-\d+$`)},
	{"aws-eusc", regexp.MustCompile(`^eusc\-(de)\-\w+\-\d+$`)},
	{"aws-iso", regexp.MustCompile(`^us\-iso\-\w+\-\d+$`)},
	{"aws-iso-b", regexp.MustCompile(`^us\-isob\-\w+\-\d+$`)},
	{"aws-iso-e", regexp.MustCompile(`^eu\-isoe\-\w+\-\d+$`)},
	{"aws-iso-f", regexp.MustCompile(`^us\-isof\-\w+\-\d+$`)},
	{"aws-us-gov", regexp.MustCompile(`^us\-gov\-\w+\-\d+$`)},
}

// maxRegionLength bounds a Region name: the longest a DynamoDBTable's or
// an AWSAccount's spec.region may be (their CRDs' maxLength), so no Region
// Tether holds a table in is longer.
const maxRegionLength = 64

// PartitionOf is the partition that holds region ("aws", "aws-cn", ...),
// false for a name no partition's pattern matches.
func PartitionOf(region string) (string, bool) {
	if len(region) > maxRegionLength {
		return "", false
	}
	for _, p := range partitions {
		if p.regions.MatchString(region) {
			return p.id, true
		}
	}
	return "", false
}
