package release

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	spdxjson "github.com/spdx/tools-golang/json"
	"github.com/spdx/tools-golang/spdx/v2/common"
	spdx "github.com/spdx/tools-golang/spdx/v2/v2_3"
)

// WriteSBOM writes an SPDX 2.3 document (JSON) of what is linked into the
// manager: the Go toolchain's standard library and every module, at the
// version and with the replacement the binary's own build information
// records (debug/buildinfo, what `go version -m` prints). It is read from
// the binary rather than from go.mod, so it lists exactly what was linked.
// Every platform's binary links the same modules; binary is one of them.
func WriteSBOM(w io.Writer, binary, version string, created time.Time) error {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return fmt.Errorf("the manager's build information: %w", err)
	}
	raw, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	main := &spdx.Package{
		PackageName: "tether", PackageSPDXIdentifier: "Package-tether", PackageVersion: version,
		PackageDownloadLocation: "NOASSERTION", FilesAnalyzed: false, PrimaryPackagePurpose: "APPLICATION",
		PackageLicenseConcluded: "NOASSERTION", PackageLicenseDeclared: "NOASSERTION", PackageCopyrightText: "NOASSERTION",
		PackageComment:            "The manager binary (" + info.Path + "), module " + info.Main.Path,
		PackageExternalReferences: []*spdx.PackageExternalReference{purl(info.Main.Path, version)},
	}
	stdlib := &spdx.Package{
		PackageName: "stdlib", PackageSPDXIdentifier: "Package-stdlib", PackageVersion: info.GoVersion,
		PackageDownloadLocation: "NOASSERTION", PackageLicenseConcluded: "NOASSERTION", PackageLicenseDeclared: "NOASSERTION",
		PackageCopyrightText: "NOASSERTION", PackageComment: "The Go standard library the manager was built with",
		PackageExternalReferences: []*spdx.PackageExternalReference{purl("stdlib", info.GoVersion)},
	}
	doc := &spdx.Document{
		SPDXVersion: spdx.Version, DataLicense: spdx.DataLicense, SPDXIdentifier: "DOCUMENT",
		DocumentName: "tether-" + version,
		// Unique per build, yet the same for the same binary: a release
		// built twice from the same source gives the same SBOM.
		DocumentNamespace: "https://tether.dev/spdx/tether-" + version + "-" + hex.EncodeToString(sum[:8]),
		CreationInfo: &spdx.CreationInfo{
			Creators: []common.Creator{{CreatorType: "Tool", Creator: "tether-release-" + version}},
			Created:  created.UTC().Format(time.RFC3339),
		},
		Packages: []*spdx.Package{main, stdlib},
		Relationships: []*spdx.Relationship{
			{RefA: common.MakeDocElementID("", "DOCUMENT"), RefB: common.MakeDocElementID("", "Package-tether"), Relationship: common.TypeRelationshipDescribe},
			{RefA: common.MakeDocElementID("", "Package-tether"), RefB: common.MakeDocElementID("", "Package-stdlib"), Relationship: common.TypeRelationshipDependsOn},
		},
	}
	deps := info.Deps
	sort.Slice(deps, func(i, j int) bool { return deps[i].Path < deps[j].Path })
	for i, d := range deps {
		m := d
		comment := "go.sum " + d.Sum
		if d.Replace != nil {
			m = d.Replace
			comment = "replaces " + d.Path + " " + d.Version + "; go.sum " + d.Replace.Sum
		}
		id := common.ElementID(fmt.Sprintf("Package-go-%d", i))
		doc.Packages = append(doc.Packages, &spdx.Package{
			PackageName: m.Path, PackageSPDXIdentifier: id, PackageVersion: m.Version,
			PackageDownloadLocation: "NOASSERTION", PackageLicenseConcluded: "NOASSERTION", PackageLicenseDeclared: "NOASSERTION",
			PackageCopyrightText: "NOASSERTION", PackageComment: strings.TrimSpace(comment),
			PackageExternalReferences: []*spdx.PackageExternalReference{purl(m.Path, m.Version)},
		})
		doc.Relationships = append(doc.Relationships, &spdx.Relationship{
			RefA: common.MakeDocElementID("", "Package-tether"), RefB: common.MakeDocElementID("", string(id)), Relationship: common.TypeRelationshipDependsOn})
	}
	return spdxjson.Write(doc, w, spdxjson.Indent("  "))
}

// purl is a Go module's package URL (github.com/package-url/purl-spec,
// type golang), which vulnerability scanners match on.
func purl(path, version string) *spdx.PackageExternalReference {
	return &spdx.PackageExternalReference{Category: "PACKAGE-MANAGER", RefType: "purl",
		Locator: "pkg:golang/" + path + "@" + version}
}
