package ddbgap

import (
	"fmt"
	"strings"
	"time"
)

// The Application Auto Scaling calls for the dynamodb namespace (API
// reference of Application Auto Scaling; autoscaling/application/userguide/
// services-that-can-integrate-dynamodb.html): ResourceId "table/<t>" or
// "table/<t>/index/<i>", dimensions dynamodb:table|index:ReadCapacityUnits|
// WriteCapacityUnits, target-tracking policies on
// DynamoDBRead|WriteCapacityUtilization.

type scalableTarget struct {
	db, resource, dimension string
	min, max                int64
	created                 time.Time
}

type scalingPolicy struct {
	db, name, resource, dimension string
	config                        map[string]any
	created                       time.Time
}

func targetKey(db, resource, dimension string) string { return db + "|" + resource + "|" + dimension }

func init() {
	register(atAutoScaling, &feature{
		scalingOps: map[string]handler{
			"RegisterScalableTarget":   (*Server).registerScalableTarget,
			"DescribeScalableTargets":  (*Server).describeScalableTargets,
			"DeregisterScalableTarget": (*Server).deregisterScalableTarget,
			"PutScalingPolicy":         (*Server).putScalingPolicy,
			"DescribeScalingPolicies":  (*Server).describeScalingPolicies,
			"DeleteScalingPolicy":      (*Server).deleteScalingPolicy,
		},
		writeScaled: (*Server).writeAutoscaled,
	})
}

// scaling is the server's scalable targets (database|resource|dimension)
// and policies (database|resource|dimension|policy name).
type scaling struct {
	targets  map[string]*scalableTarget
	policies map[string]*scalingPolicy
}

var scalingOf = perServer(func(sc *scaling) {
	sc.targets, sc.policies = map[string]*scalableTarget{}, map[string]*scalingPolicy{}
})

func scalingValidation(format string, args ...any) *apiError {
	return &apiError{status: 400, code: "ValidationException", msg: fmt.Sprintf(format, args...)}
}

func objectNotFound(format string, args ...any) *apiError {
	// "For any operation that depends on the existence of a scalable target,
	// this exception is thrown if the scalable target ... does not exist"
	// (API ObjectNotFoundException).
	return &apiError{status: 400, code: "ObjectNotFoundException", msg: fmt.Sprintf(format, args...)}
}

// resourceOf splits a DynamoDB ResourceId and checks the dimension fits it.
func resourceOf(c *call) (table, index, dimension string, err error) {
	if ns := str(c.body, "ServiceNamespace"); ns != "dynamodb" {
		return "", "", "", scalingValidation("the model only knows the dynamodb namespace, not %q", ns)
	}
	id, dimension := str(c.body, "ResourceId"), str(c.body, "ScalableDimension")
	parts := strings.Split(id, "/")
	kind := "table"
	switch {
	case len(parts) == 2 && parts[0] == "table":
		table = parts[1]
	case len(parts) == 4 && parts[0] == "table" && parts[2] == "index":
		table, index, kind = parts[1], parts[3], "index"
	default:
		return "", "", "", scalingValidation("Unsupported resource ID %s", id)
	}
	if dimension != "dynamodb:"+kind+":ReadCapacityUnits" && dimension != "dynamodb:"+kind+":WriteCapacityUnits" {
		return "", "", "", scalingValidation("Unsupported scalable dimension %s for resource %s", dimension, id)
	}
	return table, index, dimension, nil
}

// registerScalableTarget creates or updates a target. "Any parameters that
// you don't specify are not changed"; registering "changes the resource's
// current capacity to a value that is inside of this range" (API
// RegisterScalableTarget). Only a PROVISIONED table's capacity can scale
// (developerguide AutoScaling.html: auto scaling manages provisioned capacity).
func (s *Server) registerScalableTarget(c *call) (any, error) {
	table, index, dimension, err := resourceOf(c)
	if err != nil {
		return nil, err
	}
	desc, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": table})
	if err != nil {
		return nil, scalingValidation("DynamoDB table %s does not exist", table)
	}
	t := obj(desc, "Table")
	if billingOf(t) != provisioned {
		return nil, scalingValidation("The table %s is not in provisioned capacity mode", table)
	}
	pt := obj(t, "ProvisionedThroughput")
	if index != "" {
		g := indexOf(t, index)
		if g == nil {
			return nil, scalingValidation("DynamoDB index %s of table %s does not exist", index, table)
		}
		pt = obj(g, "ProvisionedThroughput")
	}
	resource, db := str(c.body, "ResourceId"), database(c.r)
	s.mu.Lock()
	tg, ok := scalingOf(s).targets[targetKey(db, resource, dimension)]
	if !ok {
		tg = &scalableTarget{db: db, resource: resource, dimension: dimension, created: time.Now()}
	}
	next := *tg
	minC, hasMin := num(c.body, "MinCapacity")
	maxC, hasMax := num(c.body, "MaxCapacity")
	if !ok && (!hasMin || !hasMax) {
		s.mu.Unlock()
		return nil, scalingValidation("MinCapacity and MaxCapacity are required to register a new scalable target")
	}
	if hasMin {
		next.min = minC
	}
	if hasMax {
		next.max = maxC
	}
	if next.min > next.max {
		s.mu.Unlock()
		return nil, scalingValidation("Minimum capacity cannot be greater than maximum capacity")
	}
	*tg = next
	scalingOf(s).targets[targetKey(db, resource, dimension)] = tg
	s.mu.Unlock()

	// Move the capacity into the range, as Application Auto Scaling does.
	field := "ReadCapacityUnits"
	if strings.HasSuffix(dimension, "WriteCapacityUnits") {
		field = "WriteCapacityUnits"
	}
	have, _ := num(pt, field)
	if want := min(max(have, next.min), next.max); want != have && str(t, "TableStatus") == "ACTIVE" {
		capacity := map[string]any{"ReadCapacityUnits": pt["ReadCapacityUnits"], "WriteCapacityUnits": pt["WriteCapacityUnits"]}
		capacity[field] = want
		in := map[string]any{"TableName": table, "ProvisionedThroughput": capacity}
		if index != "" {
			in = map[string]any{"TableName": table, "GlobalSecondaryIndexUpdates": []any{map[string]any{
				"Update": map[string]any{"IndexName": index, "ProvisionedThroughput": capacity}}}}
		}
		if _, err := s.local(c.r, "UpdateTable", in); err != nil {
			return nil, err
		}
	}
	return map[string]any{"ScalableTargetARN": "arn:aws:application-autoscaling:" + region(c.r) + ":000000000000:scalable-target/" + resource}, nil
}

func (s *Server) describeScalableTargets(c *call) (any, error) {
	if ns := str(c.body, "ServiceNamespace"); ns != "dynamodb" {
		return nil, scalingValidation("the model only knows the dynamodb namespace, not %q", ns)
	}
	ids := map[string]bool{}
	for _, id := range list(c.body, "ResourceIds") {
		ids[id.(string)] = true
	}
	dimension := str(c.body, "ScalableDimension")
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	for _, tg := range scalingOf(s).targets {
		if tg.db != database(c.r) || (len(ids) > 0 && !ids[tg.resource]) || (dimension != "" && dimension != tg.dimension) {
			continue
		}
		out = append(out, map[string]any{"ServiceNamespace": "dynamodb", "ResourceId": tg.resource, "ScalableDimension": tg.dimension,
			"MinCapacity": tg.min, "MaxCapacity": tg.max, "CreationTime": epoch(tg.created),
			"RoleARN": "arn:aws:iam::000000000000:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"})
	}
	return map[string]any{"ScalableTargets": out}, nil
}

// deregisterScalableTarget: "Deregistering a scalable target deletes the
// scaling policies and the scheduled actions that are associated with it"
// (API DeregisterScalableTarget).
func (s *Server) deregisterScalableTarget(c *call) (any, error) {
	_, _, dimension, err := resourceOf(c)
	if err != nil {
		return nil, err
	}
	resource := str(c.body, "ResourceId")
	s.mu.Lock()
	defer s.mu.Unlock()
	key := targetKey(database(c.r), resource, dimension)
	if _, ok := scalingOf(s).targets[key]; !ok {
		return nil, objectNotFound("No scalable target registered for service namespace: dynamodb, resource ID: %s, scalable dimension: %s", resource, dimension)
	}
	delete(scalingOf(s).targets, key)
	for k, p := range scalingOf(s).policies {
		if p.db == database(c.r) && p.resource == resource && p.dimension == dimension {
			delete(scalingOf(s).policies, k)
		}
	}
	return map[string]any{}, nil
}

func (s *Server) putScalingPolicy(c *call) (any, error) {
	_, _, dimension, err := resourceOf(c)
	if err != nil {
		return nil, err
	}
	resource, name := str(c.body, "ResourceId"), str(c.body, "PolicyName")
	if name == "" {
		return nil, scalingValidation("PolicyName is required")
	}
	if str(c.body, "PolicyType") != "TargetTrackingScaling" {
		return nil, scalingValidation("the model only knows TargetTrackingScaling policies")
	}
	config := obj(c.body, "TargetTrackingScalingPolicyConfiguration")
	if _, ok := config["TargetValue"].(float64); !ok {
		return nil, scalingValidation("TargetTrackingScalingPolicyConfiguration.TargetValue is required")
	}
	metric := str(obj(config, "PredefinedMetricSpecification"), "PredefinedMetricType")
	want := "DynamoDBReadCapacityUtilization"
	if strings.HasSuffix(dimension, "WriteCapacityUnits") {
		want = "DynamoDBWriteCapacityUtilization"
	}
	if metric != want {
		return nil, scalingValidation("PredefinedMetricType %s does not fit scalable dimension %s", metric, dimension)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	db := database(c.r)
	if _, ok := scalingOf(s).targets[targetKey(db, resource, dimension)]; !ok {
		return nil, objectNotFound("No scalable target registered for service namespace: dynamodb, resource ID: %s, scalable dimension: %s", resource, dimension)
	}
	key := targetKey(db, resource, dimension) + "|" + name
	p, ok := scalingOf(s).policies[key]
	if !ok {
		p = &scalingPolicy{db: db, name: name, resource: resource, dimension: dimension, created: time.Now()}
		scalingOf(s).policies[key] = p
	}
	p.config = config
	return map[string]any{"PolicyARN": p.arn(region(c.r)), "Alarms": []any{}}, nil
}

func (p *scalingPolicy) arn(region string) string {
	return "arn:aws:autoscaling:" + region + ":000000000000:scalingPolicy:00000000-0000-0000-0000-000000000000:resource/dynamodb/" +
		p.resource + ":policyName/" + p.name
}

func (s *Server) describeScalingPolicies(c *call) (any, error) {
	if ns := str(c.body, "ServiceNamespace"); ns != "dynamodb" {
		return nil, scalingValidation("the model only knows the dynamodb namespace, not %q", ns)
	}
	names := map[string]bool{}
	for _, n := range list(c.body, "PolicyNames") {
		names[n.(string)] = true
	}
	resource, dimension := str(c.body, "ResourceId"), str(c.body, "ScalableDimension")
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	for _, p := range scalingOf(s).policies {
		if p.db != database(c.r) || (len(names) > 0 && !names[p.name]) || (resource != "" && resource != p.resource) || (dimension != "" && dimension != p.dimension) {
			continue
		}
		out = append(out, map[string]any{"PolicyARN": p.arn(region(c.r)), "PolicyName": p.name, "ServiceNamespace": "dynamodb",
			"ResourceId": p.resource, "ScalableDimension": p.dimension, "PolicyType": "TargetTrackingScaling",
			"TargetTrackingScalingPolicyConfiguration": p.config, "CreationTime": epoch(p.created)})
	}
	return map[string]any{"ScalingPolicies": out}, nil
}

func (s *Server) deleteScalingPolicy(c *call) (any, error) {
	_, _, dimension, err := resourceOf(c)
	if err != nil {
		return nil, err
	}
	key := targetKey(database(c.r), str(c.body, "ResourceId"), dimension) + "|" + str(c.body, "PolicyName")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := scalingOf(s).policies[key]; !ok {
		return nil, objectNotFound("No scaling policy found for service namespace: dynamodb, resource ID: %s, scalable dimension: %s, policy name: %s",
			str(c.body, "ResourceId"), dimension, str(c.body, "PolicyName"))
	}
	delete(scalingOf(s).policies, key)
	return map[string]any{}, nil
}

// writeAutoscaled says whether the write capacity of the table and of
// every index is under a scalable target in the caller's database (s.mu
// held).
func (s *Server) writeAutoscaled(db string, t map[string]any) bool {
	table := str(t, "TableName")
	if _, ok := scalingOf(s).targets[targetKey(db, "table/"+table, "dynamodb:table:WriteCapacityUnits")]; !ok {
		return false
	}
	for _, g := range list(t, "GlobalSecondaryIndexes") {
		resource := "table/" + table + "/index/" + str(g.(map[string]any), "IndexName")
		if _, ok := scalingOf(s).targets[targetKey(db, resource, "dynamodb:index:WriteCapacityUnits")]; !ok {
			return false
		}
	}
	return true
}
