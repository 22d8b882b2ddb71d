// Command demo runs the conference demo on one machine: a real API server,
// DynamoDB Local, the Hue bridge simulator and the operator. Ctrl-C (or
// `make demo-down`) stops every process it started.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/tether-dev/tether/internal/demo"
)

func main() {
	opts := demo.Options{
		HueBridge: os.Getenv("HUE_BRIDGE"),
		RealAWS:   os.Getenv("AWS_ACCESS_KEY_ID") != "" || os.Getenv("AWS_PROFILE") != "",
		Progress:  os.Stdout,
	}
	flag.StringVar(&opts.StateDir, "state-dir", filepath.Join(os.TempDir(), "tether-demo"), "Folder for the kubeconfig and the pid file.")
	flag.StringVar(&opts.AssetsDir, "assets", os.Getenv("KUBEBUILDER_ASSETS"), "Folder with kube-apiserver, etcd and kubectl.")
	flag.StringVar(&opts.WebAddr, "web", "127.0.0.1:8000", "Address of the simulator's web page.")
	flag.StringVar(&opts.MetricsAddr, "metrics", "127.0.0.1:8080", "Address of the operator's metrics endpoint.")
	verbose := flag.Bool("v", false, "Print the operator's logs.")
	flag.Parse()

	closeLog, err := setupLogging(opts.StateDir, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	defer closeLog()
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(opts demo.Options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	fmt.Println("Starting the Tether demo")
	d, err := demo.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("\nStopping: operator, simulator, DynamoDB Local, API server")
		d.Stop()
		_ = os.Remove(pidFile(opts))
		fmt.Println("Stopped; nothing is left running.")
	}()
	if err := os.WriteFile(pidFile(opts), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return err
	}
	printReady(d, opts)
	<-ctx.Done()
	return nil
}

// setupLogging sends the operator's structured logs to operator.log in the
// state folder (the terminal stays readable for the talk), or to the
// terminal with -v.
func setupLogging(stateDir string, verbose bool) (func(), error) {
	if verbose {
		ctrl.SetLogger(zap.New())
		return func() {}, nil
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(stateDir, "operator.log"))
	if err != nil {
		return nil, err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(f)))
	return func() { _ = f.Close() }, nil
}

func pidFile(opts demo.Options) string { return filepath.Join(opts.StateDir, "demo.pid") }

func printReady(d *demo.Demo, opts demo.Options) {
	fmt.Printf("\nReady in %s.\n\n", d.StartupTime.Round(100*time.Millisecond))
	if d.WebURL != "" {
		fmt.Printf("  Lights on screen:  %s\n", d.WebURL)
	}
	fmt.Printf("  Hue bridge:        %s\n", d.BridgeURL)
	if d.DynamoDBURL != "" {
		fmt.Printf("  DynamoDB Local:    %s\n", d.DynamoDBURL)
	} else {
		fmt.Println("  DynamoDB:          your AWS account (default credential chain)")
	}
	fmt.Printf("\nIn another terminal:\n\n")
	fmt.Printf("  export KUBECONFIG=%s\n", d.Kubeconfig)
	fmt.Printf("  export PATH=%s:$PATH   # kubectl matching the API server\n", filepath.Dir(d.Kubectl))
	fmt.Printf("  (or: source %s)\n\n", filepath.Join(opts.StateDir, "demo.env"))
	fmt.Println("  kubectl apply -f config/samples/hue_v1alpha1_huelight.yaml")
	fmt.Println("  kubectl get huelights -A")
	fmt.Println("  kubectl apply -f config/samples/aws_v1alpha1_dynamodbtable.yaml")
	fmt.Println("  kubectl get ddbt")
	fmt.Println("  hack/demo-script.sh        # the talk's walkthrough, with pauses")
	fmt.Printf("\nOperator logs: %s (or run with -v)\n", filepath.Join(opts.StateDir, "operator.log"))
	fmt.Printf("Ctrl-C here (or make demo-down) stops everything.\n")
}
