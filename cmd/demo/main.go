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
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/demo"
)

func main() {
	opts := demo.Options{
		HueBridge: os.Getenv("HUE_BRIDGE"),
		RealAWS:   os.Getenv("AWS_ACCESS_KEY_ID") != "" || os.Getenv("AWS_PROFILE") != "",
		Progress:  os.Stdout,
	}
	flag.StringVar(&opts.StateDir, "state-dir", filepath.Join(os.TempDir(), "tether-demo"), "Folder for the kubeconfig, demo.env, the pid file and the operator's log (all removed on exit).")
	flag.StringVar(&opts.AssetsDir, "assets", os.Getenv("KUBEBUILDER_ASSETS"), "Folder with kube-apiserver, etcd and kubectl.")
	flag.StringVar(&opts.WebAddr, "web", "127.0.0.1:8000", "Address of the simulator's web page.")
	flag.StringVar(&opts.MetricsAddr, "metrics", "127.0.0.1:8080", "Address of the operator's metrics endpoint.")
	verbose := flag.Bool("v", false, "Print the operator's logs.")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Println("Starting the Tether demo")
	err := demo.Run(ctx, opts, *verbose, func(d *demo.Demo) { printReady(d, opts, *verbose) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		stop()
		os.Exit(1)
	}
	fmt.Println("Stopped; nothing is left running, and the demo's files are removed.")
}

func printReady(d *demo.Demo, opts demo.Options, verbose bool) {
	fmt.Printf("\nReady in %s.\n\n", d.StartupTime.Round(100*time.Millisecond))
	if d.WebURL != "" {
		fmt.Printf("  Live page:         %s\n", d.WebURL)
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
	fmt.Println("  kubectl apply -f config/samples/hue_v1alpha1_huelight_limits.yaml")
	fmt.Println("  kubectl apply -f config/samples/aws_v1alpha1_dynamodbtable.yaml")
	fmt.Println("  kubectl get huelights -A; kubectl get ddbt")
	fmt.Println("  hack/demo-script.sh        # the talk's walkthrough: Enter between steps (DEMO_AUTO=1: straight through)")
	if !verbose {
		fmt.Printf("\nOperator logs: %s (removed on exit; -v prints them here)\n", filepath.Join(opts.StateDir, demo.OperatorLog))
	}
	fmt.Printf("Ctrl-C here (or make demo-down) stops everything.\n")
}
