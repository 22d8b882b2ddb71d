package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The operator's defaults the goals are stated against.
const (
	// bridgeCommandsPerSecond is the per-bridge light-command budget (the
	// manager's --hue-commands-per-second default and the simulator's).
	bridgeCommandsPerSecond = 10
	// limiterRate and limiterBurst are the DynamoDB adapter's per-region
	// limiter (providers/dynamodb ClientOptions defaults).
	limiterRate  = 25
	limiterBurst = 100
)

// figureTitles are the figures' titles, by number; each figure registers
// its own (register.go).
var figureTitles = map[int]string{}

// KnownFigure says whether n is a figure the harness can measure.
func KnownFigure(n int) bool { _, ok := figureTitles[n]; return ok }

// goal is a bound a measure must stay within.
type goal struct {
	Op    string  `json:"op"` // "<=" only, for now
	Limit float64 `json:"limit"`
	// Text, when set, says the goal better than "<= limit unit".
	Text string `json:"text,omitempty"`
}

func (g *goal) met(v float64) bool { return v <= g.Limit+1e-9 }

type sample struct {
	Key   string
	Label string
	Unit  string
	Value float64
	Goal  *goal
	// Why explains the value from the run's evidence, for a missed goal.
	Why string
	// GoalNote, for a measure whose verdict is on another row (its ratio
	// to its floor), says so in the goal column.
	GoalNote string
}

// figureResult is one run's measures of one figure.
type figureResult struct {
	ID      int
	Title   string
	Samples []sample
	Notes   []string
	// Failure is why the figure could not be measured to the end.
	Failure string
}

func (f *figureResult) add(key, label, unit string, v float64, g *goal) {
	f.Samples = append(f.Samples, sample{Key: key, Label: label, Unit: unit, Value: v, Goal: g})
}

// floor is the least time a measure can take on this machine in this run:
// what bounds it from outside Tether (a bridge's command budget, a poll
// interval, the API server's own pace), measured or computed.
type floor struct {
	// What names it, e.g. "the bridge's budget: 500 commands at 10/s".
	What  string
	Value float64
}

// addFloored adds a time measure, its floor and their ratio. The goal is on
// the ratio, so that a slower or faster machine, whose floor moves with it,
// reads the same verdict; the measure keeps its key, label and unit, so the
// report stays comparable with earlier ones. why (see figureResult.why)
// then applies to the ratio.
func (f *figureResult) addFloored(key, label, unit string, v float64, fl floor, maxRatio float64) {
	f.Samples = append(f.Samples, sample{Key: key, Label: label, Unit: unit, Value: v,
		GoalNote: fmt.Sprintf("<= %sx its floor (next rows)", formatNumber(maxRatio))})
	f.add(key+"_floor", "its floor: "+fl.What, unit, fl.Value, nil)
	f.add(key+"_ratio", "its ratio to the floor", "x", ratioOf(v, fl.Value), &goal{Op: "<=", Limit: maxRatio})
}

// why attaches an explanation to the measure added last.
func (f *figureResult) why(format string, args ...any) {
	f.Samples[len(f.Samples)-1].Why = fmt.Sprintf(format, args...)
}

func (f *figureResult) note(format string, args ...any) {
	f.Notes = append(f.Notes, fmt.Sprintf(format, args...))
}

// Report is what bench/report.json holds; report.md says the same in prose.
type Report struct {
	Date     string `json:"date"`
	Command  string `json:"command"`
	Duration string `json:"duration"`
	Quick    bool   `json:"quick"`
	Runs     int    `json:"runs"`
	// RunsAsked is -runs; Runs is how many completed.
	RunsAsked int      `json:"runsAsked"`
	Machine   Machine  `json:"machine"`
	Scale     Scale    `json:"scale"`
	Figures   []Figure `json:"figures"`
	Missed    []string `json:"missed"`
	// Checks are the design questions issue 6 asks (per-object polling,
	// duplicate describes, unshared limiters), answered from the measures.
	Checks []string `json:"designChecks"`
}

// Machine is where the numbers were taken.
type Machine struct {
	Cores    int     `json:"cores"`
	MemoryGB float64 `json:"memoryGiB"`
	CPU      string  `json:"cpu,omitempty"`
	Go       string  `json:"go"`
	OS       string  `json:"os"`
}

// Figure is one figure, its measures the median over runs.
type Figure struct {
	ID       int       `json:"id"`
	Title    string    `json:"title"`
	Measures []Measure `json:"measures"`
	Notes    []string  `json:"notes,omitempty"`
	// Failures are the runs in which the figure could not be measured.
	Failures []string `json:"failures,omitempty"`
}

// Measure is one number beside its goal.
type Measure struct {
	Key    string    `json:"key"`
	Label  string    `json:"label"`
	Unit   string    `json:"unit"`
	Median float64   `json:"median"`
	Runs   []float64 `json:"runs"`
	Goal   string    `json:"goal,omitempty"`
	// Met is set when the measure has a goal.
	Met *bool `json:"met,omitempty"`
}

func aggregate(runs [][]figureResult, opts Options) *Report {
	rep := &Report{
		Date:      time.Now().UTC().Format(time.RFC3339),
		Quick:     opts.Quick,
		Runs:      len(runs),
		RunsAsked: opts.Runs,
		Machine:   CurrentMachine(),
		Scale:     opts.Scale,
		Missed:    []string{},
	}
	for fi := range runs[0] {
		// The run with the most measures of this figure lays out its table
		// (a run in which the figure failed may have fewer).
		first := runs[0][fi]
		for _, r := range runs {
			if fi < len(r) && len(r[fi].Samples) > len(first.Samples) {
				first = r[fi]
			}
		}
		fig := Figure{ID: first.ID, Title: first.Title}
		for ri, r := range runs {
			if fi < len(r) && r[fi].Failure != "" {
				fig.Failures = append(fig.Failures, fmt.Sprintf("run %d: %s", ri+1, r[fi].Failure))
				rep.Missed = append(rep.Missed, fmt.Sprintf("Figure %d (%s) failed in run %d: %s", fig.ID, fig.Title, ri+1, r[fi].Failure))
			}
		}
		for si, s := range first.Samples {
			m := Measure{Key: s.Key, Label: s.Label, Unit: s.Unit}
			why := ""
			for _, r := range runs {
				if fi < len(r) && si < len(r[fi].Samples) && r[fi].Samples[si].Key == s.Key {
					rs := r[fi].Samples[si]
					m.Runs = append(m.Runs, round(rs.Value))
					if why == "" && rs.Goal != nil && !rs.Goal.met(rs.Value) {
						why = rs.Why
					}
				}
			}
			m.Median = round(Median(m.Runs))
			if s.GoalNote != "" {
				m.Goal = s.GoalNote
			}
			if s.Goal != nil {
				m.Goal = s.Goal.Text
				if m.Goal == "" {
					m.Goal = fmt.Sprintf("%s %s %s", s.Goal.Op, strconv.FormatFloat(round(s.Goal.Limit), 'f', -1, 64), s.Unit)
				}
				met := s.Goal.met(m.Median)
				m.Met = &met
				if !met {
					if why == "" {
						why = s.Why
					}
					label := s.Label
					if si >= 2 && strings.HasSuffix(s.Key, "_ratio") && first.Samples[si-2].Key+"_ratio" == s.Key {
						label = first.Samples[si-2].Label + ": " + s.Label
					}
					line := fmt.Sprintf("Figure %d (%s): %s is %s %s, goal %s.", fig.ID, fig.Title, label, formatNumber(m.Median), s.Unit, m.Goal)
					if why != "" {
						line += " Why: " + why
					}
					rep.Missed = append(rep.Missed, line)
				}
			}
			fig.Measures = append(fig.Measures, m)
		}
		for ri, r := range runs {
			if fi >= len(r) {
				continue
			}
			for _, n := range r[fi].Notes {
				if len(runs) > 1 {
					n = fmt.Sprintf("(run %d) %s", ri+1, n)
				}
				fig.Notes = append(fig.Notes, n)
			}
		}
		rep.Figures = append(rep.Figures, fig)
	}
	rep.Checks = designChecks(rep)
	return rep
}

// measure finds a figure's measure by key.
func (r *Report) measure(fig int, key string) (float64, bool) {
	for _, f := range r.Figures {
		if f.ID != fig {
			continue
		}
		for _, m := range f.Measures {
			if m.Key == key {
				return m.Median, true
			}
		}
	}
	return 0, false
}

// designChecks answers the design questions from the medians.
func designChecks(r *Report) []string {
	var out []string
	verdict := func(ok bool, yes, no string) string {
		if ok {
			return yes
		}
		return no
	}
	lightsGets, ok1 := r.measure(3, "hue_lights_gets")
	lightRec, ok2 := r.measure(3, "light_reconciles")
	if ok1 && ok2 {
		out = append(out, fmt.Sprintf("Per-object polling (Hue): %s GET /lights per bridge per poll interval is %s and HueLight reconciles per light per interval %s in steady state.",
			verdict(lightsGets <= 1.05 && lightRec < 0.1, "none.", "**yes.**"), formatNumber(lightsGets), formatNumber(lightRec)))
	}
	if all, ok := r.measure(3, "hue_gets"); ok && ok1 && all > lightsGets+0.01 {
		out = append(out, fmt.Sprintf("Extra reads (Hue): **yes**, %s GETs per bridge per poll interval besides the poller's GET /lights (figure 3 lists them by path).",
			formatNumber(all-lightsGets)))
	}
	if d, ok := r.measure(3, "ddb_describes"); ok {
		out = append(out, fmt.Sprintf("Duplicate describes (DynamoDB): %s DescribeTable per table per poll interval is %s.",
			verdict(d <= 1.1, "none.", "**yes.**"), formatNumber(d)))
	}
	overloads, ok1 := r.measure(2, "overloads")
	rate, ok2 := r.measure(4, "rate_10s")
	if ok1 && ok2 {
		shared := overloads == 0 && rate <= limiterRate+limiterBurst/10.0
		out = append(out, fmt.Sprintf("Unshared limiters: %s the bridge refused %s commands as overloaded with %d HueLights applied at once, and DynamoDB saw at most %s calls/s (10-second average) while %d tables were created (limiter %d/s, burst %d).",
			verdict(shared, "none;", "**suspected;**"), formatNumber(overloads), r.Scale.ConvergeLights, formatNumber(rate), r.Scale.Tables, limiterRate, limiterBurst))
	}
	if g, ok := r.measure(2, "group_commands"); ok && g > 0 {
		same, _ := r.measure(2, "same_state")
		out = append(out, fmt.Sprintf("Grouping: yes. Setting %d lights to one state took %s s with %s group commands (1/s budget) instead of one command per light at 10/s.",
			r.Scale.ConvergeLights, formatNumber(same), formatNumber(g)))
	} else if ok {
		same, _ := r.measure(2, "same_state")
		out = append(out, fmt.Sprintf("Grouping: none. Setting %d lights to one state took %s s, one command per light at the bridge's 10/s; a group command (1/s budget) would take about a second. "+
			"The same floor makes the last of figure 5's %d simultaneous Hue drift corrections wait %.1f s after detection.",
			r.Scale.ConvergeLights, formatNumber(same), r.Scale.DriftLights, float64(r.Scale.DriftLights-1)/bridgeCommandsPerSecond))
	}
	return out
}

func round(v float64) float64 {
	if v == 0 {
		return 0
	}
	p, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return p
}

func formatNumber(v float64) string { return strconv.FormatFloat(round(v), 'f', -1, 64) }

// CurrentMachine describes this machine: cores, memory, CPU model, Go.
func CurrentMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "MemTotal:" {
				kb, _ := strconv.ParseFloat(fields[1], 64)
				m.MemoryGB = round(kb / (1 << 20))
			}
		}
		f.Close()
	}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// WriteFiles writes report.md and report.json into dir.
func (r *Report) WriteFiles(dir string) error { return WriteReport(dir, r, r.Markdown()) }

// WriteReport writes report (as JSON) and its markdown into dir as
// report.json and report.md: the bench's and the soak's reports alike.
func WriteReport(dir string, report any, markdown string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), []byte(markdown), 0o644)
}

// byMakeBench reports whether the bench's arguments are those of `make
// bench`: none, or only the default three runs.
func byMakeBench(command string) bool { return command == "" || command == "-runs=3" }

// Markdown renders the report for people.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Tether benchmark report\n\n")
	made := ""
	if byMakeBench(r.Command) {
		made = " (what `make bench` runs)"
	}
	w("Written by `go run ./cmd/bench %s`%s on %s in %s. ", r.Command, made, r.Date, r.Duration)
	if r.Quick {
		w("**Quick mode**: a smoke run at toy scale; the numbers say nothing about the goals. ")
	}
	if r.RunsAsked > r.Runs {
		w("**%d of the %d runs asked for completed.** ", r.Runs, r.RunsAsked)
	}
	w("Each figure is the median of %d run(s); every run starts a fresh API server (envtest), DynamoDB Local behind a counting fault proxy, Hue bridge simulators, and the manager binary as its own process.\n\n", r.Runs)
	w("**Machine**: %d cores, %.1f GiB memory, %s, %s, %s.\n\n", r.Machine.Cores, r.Machine.MemoryGB, r.Machine.CPU, r.Machine.OS, r.Machine.Go)
	s := r.Scale
	w("**Scale**: %d single changes; %d HueLights at once on one bridge; %d HueLights on two bridges and %d DynamoDBTables in steady state; drift of %d lights and %d tables; a %s bridge outage with %d HueLights; %s of 50%% throttling with %d tables changing. ",
		s.LatencyChanges, s.ConvergeLights, s.WatchLights, s.Tables, s.DriftLights, s.DriftTables, s.Outage, s.OutageLights, s.Throttle, s.ThrottleTables)
	w("Operator flags: `--hue-poll-interval=%s --dynamodbtable-poll-interval=%s` (the DynamoDB default is 2m; shortened so that %d intervals fit in a run).\n\n", s.HuePoll, s.DDBPoll, s.WatchIntervals)

	w("## Goals missed\n\n")
	if len(r.Missed) == 0 {
		w("None: every goal is met.\n\n")
	} else {
		for _, m := range r.Missed {
			w("- %s\n", m)
		}
		w("\nThe notes under each figure give the evidence.\n\n")
	}
	if len(r.Checks) > 0 {
		w("## Design checks\n\n")
		for _, c := range r.Checks {
			w("- %s\n", c)
		}
		w("\n")
	}
	for _, f := range r.Figures {
		w("## %d. %s\n\n", f.ID, f.Title)
		for _, failure := range f.Failures {
			w("**Failed** in %s\n\n", failure)
		}
		w("| Measure | Median | Runs | Goal | |\n|---|---|---|---|---|\n")
		for _, m := range f.Measures {
			runs := make([]string, len(m.Runs))
			for i, v := range m.Runs {
				runs[i] = formatNumber(v)
			}
			verdict := ""
			if m.Met != nil {
				verdict = "met"
				if !*m.Met {
					verdict = "**missed**"
				}
			}
			w("| %s | %s %s | %s | %s | %s |\n", m.Label, formatNumber(m.Median), m.Unit, strings.Join(runs, ", "), m.Goal, verdict)
		}
		w("\n")
		for _, n := range f.Notes {
			w("- %s\n", n)
		}
		w("\n")
	}
	w("## Reproduce\n\n")
	w("`make bench` (three runs of the default figures; on 2 cores figures 1 to 6 take about 15 minutes a run, the others a few minutes each) rewrites this file and `report.json`. ")
	w("`go run ./cmd/bench -runs=1` for one run; `-quick` for a smoke run of under a minute; `-size=0.2` scales the object counts down; ")
	w("`-outage`, `-throttle` and `-dynamodbtable-poll-interval` override figure 6's durations and the DynamoDB poll interval; ")
	w("`-figures=7,9` measures only the figures listed (1 to 6 share a world and run together; the others have a world each). ")
	w("When a figure fails, the progress output shows why and where the operator's log was kept.\n")
	return b.String()
}
