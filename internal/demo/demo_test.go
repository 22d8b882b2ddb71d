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

// TestDemoEndToEnd runs the demo's own startup path headless, applies the
// samples with kubectl as the README says, checks the simulated bulb and the
// table in DynamoDB Local, then stops and checks no process is left.
func TestDemoEndToEnd(t *testing.T) {
	g := NewWithT(t)
	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())

	ctx := context.Background()
	stateDir := t.TempDir()
	d, err := Start(ctx, Options{StateDir: stateDir, AssetsDir: assets, WebAddr: "127.0.0.1:0"})
	g.Expect(err).NotTo(HaveOccurred())
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			d.Stop()
		}
	})
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

	// Then the talk's walkthrough, as the README tells a speaker to run it.
	kubectl("delete", "--timeout=60s", "-f", "config/samples/hue_v1alpha1_huelight.yaml", "-f", "config/samples/aws_v1alpha1_dynamodbtable.yaml")
	script := exec.Command(filepath.Join(root, "hack", "demo-script.sh"))
	script.Env = append(os.Environ(), "DEMO_AUTO=1", "DEMO_STATE="+stateDir)
	transcript, err := script.CombinedOutput()
	g.Expect(err).NotTo(HaveOccurred(), "the walkthrough failed:\n%s", transcript)
	g.Expect(string(transcript)).To(ContainSubstring("That was the talk."))

	d.Stop()
	stopped = true
	g.Eventually(func() []int { return alive(children) }, 30*time.Second, 100*time.Millisecond).Should(BeEmpty(),
		"processes the demo started are still running")
	_, err = os.Stat(d.Kubeconfig)
	g.Expect(os.IsNotExist(err)).To(BeTrue(), "the demo left its kubeconfig behind")
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
