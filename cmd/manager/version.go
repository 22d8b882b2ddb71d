package main

import (
	"fmt"
	"runtime"
)

// version is the release this manager was built as. `make release` stamps
// it (-ldflags -X main.version=x.y.z); a build from source says dev.
var version = "dev"

// versionLine is what --version prints and the start-up log names: the
// release, and the Go toolchain and platform it was built with, which a bug
// report needs beside it.
func versionLine() string {
	return fmt.Sprintf("tether %s (%s, %s/%s)", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
