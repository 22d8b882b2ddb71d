package ddbgap

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Imports from S3 (ImportTable, DescribeImport). DynamoDB Local has
// neither (it answers UnknownOperationException), so the model runs them,
// reading the objects from Options.S3 (there is no S3 here) and making the
// table in DynamoDB Local underneath, so that DescribeTable and the item
// APIs work on it.
//
// What the model does, each AWS's behaviour
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ImportTable.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeImport.html),
// with the timings ACK's live probes measured
// (aws-controllers-k8s/dynamodb-controller docs/api-quirks/import.md,
// "ACK" below), scaled to Options.ImportDuration:
//   - ImportTable answers at once, IN_PROGRESS, with the table's ARN; for
//     a while DescribeTable still answers ResourceNotFoundException (about
//     30 s of 111, ACK), then CREATING; the table is ACTIVE a little before
//     the import is COMPLETED (about 6 s, ACK), so only DescribeImport says
//     when it has ended. While CREATING, an UpdateTable or DeleteTable is
//     a ResourceInUseException (ACK).
//   - A table that exists: ResourceInUseException (API ImportTable). The
//     name is not reserved while an import runs: a second import of the
//     same name is accepted, and the one that comes second FAILED (ACK).
//   - ClientToken: the same token again while the import runs answers that
//     import (a changed prefix ignored), with another table name an
//     ImportConflictException; after it has COMPLETED, a
//     ResourceInUseException; once its table is gone, the old import
//     (ACK).
//   - A line that is not an item of the table (bad JSON, a key attribute
//     missing or of the wrong type) fails the import, but the table is
//     made, ACTIVE, with the lines that were valid (ACK); an empty prefix
//     makes an empty table; a bucket that is not there FAILED after about
//     6 s of 111 and no table (ACK). AWS's FailureCode words for these are
//     not on record: the model's are its own, and say "the model".
//   - at most 50 imports run at once in an account (API ImportTable,
//     LimitExceededException).
//
// The model reads DYNAMODB_JSON (one {"Item": ...} per line) and CSV (a
// header line or HeaderList, the Delimiter; key attributes take the key
// schema's types, every other column is a string:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataImport.Format.html),
// plain or GZIP. ION and ZSTD it cannot read: such an import FAILED, in the
// model's words.

// AWS's measured timings of one small import, in seconds (ACK): COMPLETED
// after 111, the table not found for the first 30, ACTIVE 6 before
// COMPLETED, a missing bucket FAILED after 6. The model keeps their
// proportions within Options.ImportDuration.
const (
	awsImportSeconds        = 111
	awsImportUnseenSeconds  = 30
	awsImportActiveEarly    = 6
	awsImportNoBucketFailed = 6
)

// maxConcurrentImports: "Up to 50 simultaneous import table operations
// are allowed per account" (API ImportTable).
const maxConcurrentImports = 50

func init() {
	register(atImports, &feature{
		ops: map[string]handler{
			"ImportTable":    (*Server).importTable,
			"DescribeImport": (*Server).describeImport,
		},
		busy: func(st *tableState, now time.Time) string { return importedOf(st).view.importing(now) },
		unseen: func(st *tableState, now time.Time) bool {
			v := importedOf(st).view
			return v != nil && now.Before(v.job.unseenUntil)
		},
		describe: func(_ *Server, st *tableState, t map[string]any, now time.Time) {
			v := importedOf(st).view
			if v == nil {
				return
			}
			t["TableId"] = v.job.tableID
			if v.importing(now) != "" {
				t["TableStatus"] = "CREATING"
			}
		},
	})
}

// imports are the server's imports from S3, by ARN; seq numbers them.
type imports struct {
	byArn map[string]*importJob
	seq   int64
}

var importsOf = perServer(func(i *imports) { i.byArn = map[string]*importJob{} })

// imported is the import that made a table, nil when none did.
type imported struct{ view *importView }

var importedOf = perTable[imported](nil)

// importJob is one import, kept by its ARN.
type importJob struct {
	db, token, table                    string
	arn, tableArn, tableID              string
	input                               map[string]any // the request, as DescribeImport echoes it
	start, unseenUntil, activeAt, endAt time.Time
	// failCode and failMessage make it FAILED at endAt (or at once for a
	// loser, a missing bucket); "" COMPLETED.
	failCode, failMessage string
	noTable               bool // it made none
	processed, imported   int64
	errors                int64
	bytes                 int64
}

// status is the import's status at now.
func (j *importJob) status(now time.Time) string {
	switch {
	case now.Before(j.endAt):
		return "IN_PROGRESS"
	case j.failCode != "":
		return "FAILED"
	}
	return "COMPLETED"
}

func (j *importJob) json(now time.Time) map[string]any {
	out := maps.Clone(j.input)
	out["ClientToken"], out["ImportArn"], out["TableArn"], out["TableId"] = j.token, j.arn, j.tableArn, j.tableID
	out["ImportStatus"], out["StartTime"] = j.status(now), epoch(j.start)
	if !now.Before(j.activeAt) || !now.Before(j.endAt) {
		out["ProcessedItemCount"], out["ImportedItemCount"], out["ErrorCount"], out["ProcessedSizeBytes"] = j.processed, j.imported, j.errors, j.bytes
	}
	if !now.Before(j.endAt) {
		out["EndTime"] = epoch(j.endAt)
		if j.failCode != "" {
			out["FailureCode"], out["FailureMessage"] = j.failCode, j.failMessage
		}
	}
	if _, ok := out["InputCompressionType"]; !ok {
		out["InputCompressionType"] = "NONE"
	}
	return out
}

// importView is what an imported table's DescribeTable shows of its import.
type importView struct{ job *importJob }

// importing says why the table refuses changes while the import makes it.
func (v *importView) importing(now time.Time) string {
	if v != nil && now.Before(v.job.activeAt) {
		return "the table is being imported (CREATING)"
	}
	return ""
}

func (s *Server) importTable(c *call) (any, error) {
	params := obj(c.body, "TableCreationParameters")
	name, format, compression := str(params, "TableName"), str(c.body, "InputFormat"), str(c.body, "InputCompressionType")
	bucket := str(obj(c.body, "S3BucketSource"), "S3Bucket")
	switch {
	case name == "" || bucket == "" || len(list(params, "KeySchema")) == 0 || len(list(params, "AttributeDefinitions")) == 0:
		return nil, validation("1 validation error detected: TableCreationParameters (TableName, KeySchema, AttributeDefinitions) and S3BucketSource.S3Bucket are required")
	case !slices.Contains([]string{"CSV", "DYNAMODB_JSON", "ION"}, format):
		return nil, validation("1 validation error detected: Value '%s' at 'inputFormat' failed to satisfy constraint: Member must satisfy enum value set: [CSV, DYNAMODB_JSON, ION]", format)
	case compression != "" && !slices.Contains([]string{"GZIP", "ZSTD", "NONE"}, compression):
		return nil, validation("1 validation error detected: Value '%s' at 'inputCompressionType' failed to satisfy constraint: Member must satisfy enum value set: [GZIP, ZSTD, NONE]", compression)
	}
	now, db, token := time.Now(), database(c.r), str(c.body, "ClientToken")
	s.mu.Lock()
	if j := s.importByToken(db, token); j != nil {
		defer s.mu.Unlock()
		return s.replayImport(c, j, name, now)
	}
	running := 0
	for _, j := range importsOf(s).byArn {
		if j.db == db && now.Before(j.endAt) {
			running++
		}
	}
	st, known := s.tables[tableKey(c.r, name)]
	hidden := known && importedOf(st).view != nil && now.Before(importedOf(st).view.job.unseenUntil)
	s.mu.Unlock()
	if running >= maxConcurrentImports {
		return nil, &apiError{status: 400, code: "LimitExceededException", msg: fmt.Sprintf("Up to %d simultaneous import table operations are allowed per account", maxConcurrentImports)}
	}
	if _, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": name}); err == nil && !hidden {
		return nil, inUse("Table already exists: %s", name)
	}
	if err := s.stillDeleting(c, name); err != nil {
		return nil, err
	}

	d := s.importDuration()
	s.mu.Lock()
	importsOf(s).seq++
	seq := importsOf(s).seq
	s.mu.Unlock()
	j := &importJob{db: db, token: token, table: name, input: maps.Clone(c.body), start: now,
		tableID: fmt.Sprintf("%08x-0000-4000-8000-%012x", seq, seq)}
	j.tableArn = fmt.Sprintf("arn:aws:dynamodb:%s:000000000000:table/%s", region(c.r), name)
	objects, found := s.opts.S3[bucket]
	if found && !hidden {
		if err := s.runImport(c, j, params, objects); err != nil {
			return nil, err
		}
	}
	// The phases start when the model answers: making the table in
	// DynamoDB Local takes it a while.
	now = time.Now()
	j.unseenUntil, j.activeAt, j.endAt = now.Add(d*awsImportUnseenSeconds/awsImportSeconds), now.Add(d-d*awsImportActiveEarly/awsImportSeconds), now.Add(d)
	switch {
	case !found:
		j.noTable, j.failCode = true, "S3NoSuchBucket"
		j.failMessage = fmt.Sprintf("the model: bucket %s does not exist", bucket)
		j.endAt = now.Add(d * awsImportNoBucketFailed / awsImportSeconds)
	case hidden:
		// The name was not reserved: this import comes second and fails,
		// the first one's table stays.
		j.noTable, j.failCode = true, "TableAlreadyExists"
		j.failMessage = fmt.Sprintf("the model: table %s was created by another import while this one ran", name)
	}
	j.arn = j.tableArn + "/import/" + strconv.FormatInt(now.UnixMilli(), 10) + "-" + strconv.FormatInt(seq, 10)
	s.mu.Lock()
	defer s.mu.Unlock()
	importsOf(s).byArn[j.arn] = j
	if st, ok := s.tables[tableKey(c.r, name)]; ok && !j.noTable {
		importedOf(st).view = &importView{job: j}
	}
	return map[string]any{"ImportTableDescription": j.json(now)}, nil
}

// replayImport answers an ImportTable whose ClientToken names import j
// (ACK, see above), with s.mu held.
func (s *Server) replayImport(c *call, j *importJob, name string, now time.Time) (any, error) {
	if j.table != name {
		return nil, &apiError{status: 400, code: "ImportConflictException", msg: fmt.Sprintf("the client token %s names an import into table %s", j.token, j.table)}
	}
	st, exists := s.tables[tableKey(c.r, name)]
	if j.status(now) == "COMPLETED" && exists && importedOf(st).view != nil && importedOf(st).view.job == j {
		return nil, inUse("Table already exists: %s", name)
	}
	return map[string]any{"ImportTableDescription": j.json(now)}, nil
}

func (s *Server) importByToken(db, token string) *importJob {
	if token == "" {
		return nil
	}
	for _, j := range importsOf(s).byArn {
		if j.db == db && j.token == token {
			return j
		}
	}
	return nil
}

func (s *Server) importDuration() time.Duration {
	if s.opts.ImportDuration > 0 {
		return s.opts.ImportDuration
	}
	return 10 * s.opts.Transition
}

// runImport makes the table in DynamoDB Local (through the model's own
// CreateTable, so that what it keeps of a new table is kept) and writes
// the valid items; the bad ones are counted, and fail the import.
func (s *Server) runImport(c *call, j *importJob, params map[string]any, objects map[string]string) error {
	create := &call{r: c.r, op: "CreateTable", body: clone(params)}
	if _, err := s.createTable(create); err != nil {
		return err
	}
	out, err := s.local(c.r, "DescribeTable", map[string]any{"TableName": j.table})
	if err != nil {
		return err
	}
	j.tableArn = str(obj(out, "Table"), "TableArn")
	keys := map[string]string{} // key attribute → its type
	for _, k := range list(params, "KeySchema") {
		keys[str(k.(map[string]any), "AttributeName")] = ""
	}
	for _, a := range list(params, "AttributeDefinitions") {
		a := a.(map[string]any)
		if _, ok := keys[str(a, "AttributeName")]; ok {
			keys[str(a, "AttributeName")] = str(a, "AttributeType")
		}
	}
	source := obj(c.body, "S3BucketSource")
	prefix := str(source, "S3KeyPrefix")
	var bad []string
	for _, key := range slices.Sorted(maps.Keys(objects)) {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		items, lineErrs, err := readObject(objects[key], str(c.body, "InputFormat"), str(c.body, "InputCompressionType"), obj(obj(c.body, "InputFormatOptions"), "Csv"), keys)
		j.bytes += int64(len(objects[key]))
		if err != nil {
			j.failCode, j.failMessage = "UnreadableInput", fmt.Sprintf("the model: s3://%s/%s: %v", str(source, "S3Bucket"), key, err)
			return nil
		}
		for _, item := range items {
			if _, err := s.local(c.r, "PutItem", map[string]any{"TableName": j.table, "Item": item}); err != nil {
				lineErrs = append(lineErrs, err.Error())
				continue
			}
			j.imported++
		}
		j.processed += int64(len(items) + len(lineErrs))
		for _, e := range lineErrs {
			bad = append(bad, key+": "+e)
		}
	}
	j.errors = int64(len(bad))
	if len(bad) > 0 {
		j.failCode = "ItemValidationError"
		j.failMessage = fmt.Sprintf("the model: %d line(s) are not items of the table, the first: %s", len(bad), bad[0])
	}
	return nil
}

// readObject reads one S3 object's items; a line that is not an item of
// the table is an error of its own, the object unreadable an error for all.
func readObject(content, format, compression string, csvOpts map[string]any, keys map[string]string) ([]map[string]any, []string, error) {
	data := []byte(content)
	switch compression {
	case "GZIP":
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, nil, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, nil, err
		}
	case "ZSTD":
		return nil, nil, fmt.Errorf("the model cannot read ZSTD")
	}
	var items []map[string]any
	var bad []string
	keep := func(line int, item map[string]any, err error) {
		if err == nil {
			err = checkKeys(item, keys)
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("line %d: %v", line, err))
			return
		}
		items = append(items, item)
	}
	switch format {
	case "DYNAMODB_JSON":
		for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var v struct{ Item map[string]any }
			err := json.Unmarshal([]byte(line), &v)
			if err == nil && v.Item == nil {
				err = fmt.Errorf("no Item")
			}
			keep(i+1, v.Item, err)
		}
	case "CSV":
		r := csv.NewReader(bytes.NewReader(data))
		r.FieldsPerRecord = -1
		if d := str(csvOpts, "Delimiter"); d != "" {
			r.Comma = rune(d[0])
		}
		rows, err := r.ReadAll()
		if err != nil {
			return nil, nil, err
		}
		var header []string
		for _, h := range list(csvOpts, "HeaderList") {
			header = append(header, h.(string))
		}
		first := 1
		if header == nil && len(rows) > 0 {
			header, rows, first = rows[0], rows[1:], 2
		}
		for i, row := range rows {
			item, err := csvItem(header, row, keys)
			keep(i+first, item, err)
		}
	default:
		return nil, nil, fmt.Errorf("the model cannot read %s", format)
	}
	return items, bad, nil
}

// csvItem makes a CSV row an item: key attributes of their key type,
// every other column a string, empty columns left out.
func csvItem(header, row []string, keys map[string]string) (map[string]any, error) {
	if len(row) != len(header) {
		return nil, fmt.Errorf("%d columns, the header has %d", len(row), len(header))
	}
	item := map[string]any{}
	for i, col := range header {
		if row[i] == "" {
			continue
		}
		typ := keys[col]
		if typ == "" {
			typ = "S"
		}
		item[col] = map[string]any{typ: row[i]}
	}
	return item, nil
}

// checkKeys: every key attribute is there, of its type (a number for N).
func checkKeys(item map[string]any, keys map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(keys)) {
		v, _ := item[name].(map[string]any)
		val, ok := v[keys[name]].(string)
		if !ok || val == "" {
			return fmt.Errorf("key attribute %s missing or not of type %s", name, keys[name])
		}
		if keys[name] == "N" {
			if _, err := strconv.ParseFloat(val, 64); err != nil {
				return fmt.Errorf("key attribute %s is not a number: %q", name, val)
			}
		}
	}
	return nil
}

// describeImport answers an import by its ARN (ImportNotFoundException
// otherwise, API DescribeImport).
func (s *Server) describeImport(c *call) (any, error) {
	arn := str(c.body, "ImportArn")
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := importsOf(s).byArn[arn]
	if !ok || j.db != database(c.r) {
		return nil, notFound("ImportNotFoundException", "Import not found: %s", arn)
	}
	return map[string]any{"ImportTableDescription": j.json(time.Now())}, nil
}

// Imports are the ARNs of every import the model started, in any database:
// what a test counts to prove a replayed ImportTable started none.
func (s *Server) Imports() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(importsOf(s).byArn))
}
