package demo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	. "github.com/onsi/gomega"

	"github.com/tether-dev/tether/internal/testenv"
)

// TestDemoEndToEnd runs the demo as `make demo` does (Run), headless,
// applies the samples with kubectl as the README says, checks the simulated
// bulb and the table in DynamoDB Local, runs the walkthrough straight
// through (DEMO_AUTO=1), then stops the demo and checks no process is left,
// and no file: not in its state folder (the folder itself goes, as Run made
// it), not in the temporary folder.
func TestDemoEndToEnd(t *testing.T) {
	g := NewWithT(t)
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())

	// Everything the demo and its children put in the temporary folder
	// (envtest's etcd data and certificates, ...) lands here.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	stateDir := filepath.Join(t.TempDir(), "tether-demo")

	ctx, stop := context.WithCancel(context.Background())
	started := make(chan *Demo, 1)
	ended := make(chan struct{})
	var runErr error
	go func() {
		defer close(ended)
		runErr = Run(ctx, Options{StateDir: stateDir, AssetsDir: assets, WebAddr: "127.0.0.1:0"}, false,
			func(d *Demo) { started <- d })
	}()
	t.Cleanup(func() { stop(); <-ended })
	var d *Demo
	select {
	case d = <-started:
	case <-ended:
		t.Fatalf("the demo did not start: %v", runErr)
	}
	g.Expect(filepath.Join(stateDir, OperatorLog)).To(BeARegularFile(), "the operator's log is not in the state folder")
	g.Expect(filepath.Join(stateDir, PidFile)).To(BeARegularFile(), "no pid file for make demo-down")
	children := childProcesses()
	g.Expect(children).NotTo(BeEmpty(), "the demo started no processes?")

	kubectl := func(args ...string) string {
		cmd := exec.Command(d.Kubectl, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "KUBECONFIG="+d.Kubeconfig)
		out, err := cmd.CombinedOutput()
		g.Expect(err).NotTo(HaveOccurred(), "kubectl %v: %s", args, out)
		return string(out)
	}
	kubectl("apply", "-f", "config/samples/hue_v1alpha1_huelight.yaml")
	kubectl("apply", "-f", "config/samples/hue_v1alpha1_huelight_limits.yaml")
	kubectl("apply", "-f", "config/samples/aws_v1alpha1_dynamodbtable.yaml")

	g.Eventually(func(g Gomega) {
		light, ok := d.Bridge.LightByName("hallway")
		g.Expect(ok).To(BeTrue())
		g.Expect(light.State.On).To(BeTrue())
		g.Expect(light.State.Bri).To(Equal(254))
	}, time.Minute, 100*time.Millisecond).Should(Succeed())

	db := dynamoDBClient(g, d.DynamoDBURL)
	g.Eventually(func(g Gomega) {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(out.Table.TableStatus)).To(Equal("ACTIVE"))
		g.Expect(out.Table.GlobalSecondaryIndexes).To(HaveLen(1))
	}, time.Minute, 200*time.Millisecond).Should(Succeed())

	out := kubectl("wait", "--for=condition=Ready", "--timeout=60s", "-n", "entrance", "huelight/hallway-light")
	g.Expect(out).To(ContainSubstring("condition met"))
	out = kubectl("get", "huelights", "-A")
	g.Expect(out).To(ContainSubstring("hallway"))

	// Then the talk's walkthrough, straight after the samples, as the
	// README says: it clears what is in its way itself (the limits
	// sample's bedroom-light holds a bulb of the living room).
	script := exec.Command(filepath.Join(root, "hack", "demo-script.sh"))
	script.Env = append(os.Environ(), "DEMO_AUTO=1", "DEMO_STATE="+stateDir)
	transcript, err := script.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "the walkthrough failed:\n%s", transcript)
	g.Expect(string(transcript)).To(ContainSubstring("That was the talk."))
	g.Expect(string(transcript)).To(ContainSubstring("HueLight entrance/bedroom-light drives the bedroom bulb, which the walkthrough drives: deleting it"))
	// The candle (CLIP v2 only): stopped by hand, lit again by Tether.
	g.Expect(string(transcript)).To(MatchRegexp(`event: DriftCorrected\s+corrected drift: effect: no_effect -> candle`))
	// The printer columns show what they claim: after the scene's recall
	// by kubectl apply, the HueGroup's room, type, member count and active
	// scene, Ready and its reason; the HueScenes their group, lights,
	// bridge id, Ready and its reason.
	g.Expect(string(transcript)).To(MatchRegexp(`NAME\s+GROUP\s+TYPE\s+LIGHTS\s+SCENE\s+READY\s+REASON\s+AGE\n` +
		`living-room\s+Living room\s+Room\s+2\s+evening\s+True\s+Available\s`))
	g.Expect(string(transcript)).To(MatchRegexp(`NAME\s+GROUP\s+LIGHTS\s+SCENE ID\s+READY\s+REASON\s+AGE\n` +
		`evening\s+living-room\s+2\s+\S+\s+True\s+Available\s`))

	g.Expect(readLog(t, filepath.Join(stateDir, OperatorLog))).To(ContainSubstring("Starting workers"),
		"the operator's log is not written to operator.log")
	stop()
	<-ended
	g.Expect(runErr).NotTo(HaveOccurred())
	g.Eventually(func() []int { return alive(children) }, 30*time.Second, 100*time.Millisecond).Should(BeEmpty(),
		"processes the demo started are still running")
	g.Expect(stateDir).NotTo(BeAnExistingFile(), "the demo left its state folder (or something in it) behind")
	left, err := os.ReadDir(tmp)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(left).To(BeEmpty(), "the demo left files in the temporary folder")
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func dynamoDBClient(g Gomega, url string) *dynamodb.Client {
	cfg, err := config.LoadDefaultConfig(context.Background())
	g.Expect(err).NotTo(HaveOccurred())
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url) })
}

// childProcesses lists the pids whose parent is this test process.
func childProcesses() []int {
	self := os.Getpid()
	var pids []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses: state ppid ...
		rest := string(raw[strings.LastIndexByte(string(raw), ')')+2:])
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[1] == strconv.Itoa(self) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive returns the pids that still run (zombies count as gone).
func alive(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if syscall.Kill(pid, 0) != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil && strings.Contains(string(raw), ") Z ") {
			continue
		}
		out = append(out, pid)
	}
	return out
}
