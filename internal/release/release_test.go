package release

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	. "github.com/onsi/gomega"
	spdxjson "github.com/spdx/tools-golang/json"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/tether-dev/tether/internal/testenv"
)

// What the tests release: a pre-release version (SemVer's "-" part must
// survive every step) and a repository without a registry host.
const (
	testVersion    = "1.2.3-rc.1"
	testRepository = "platform/tether"
)

var (
	once     sync.Once
	built    *Result
	buildErr error
	builtIn  string
)

// release builds the release once per test binary (two cross-compiled
// managers: seconds with a warm build cache), for every test to read.
func release(t *testing.T) *Result {
	t.Helper()
	once.Do(func() {
		root, err := testenv.RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		builtIn, err = os.MkdirTemp("", "tether-release-")
		if err != nil {
			buildErr = err
			return
		}
		built, buildErr = Build(Options{Root: root, Version: testVersion, Out: filepath.Join(builtIn, "dist"),
			ImageRepository: testRepository, CABundle: "/etc/ssl/certs/ca-certificates.crt"})
	})
	if buildErr != nil {
		t.Fatalf("make release: %v", buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtIn != "" {
		os.RemoveAll(builtIn)
	}
	os.Exit(code)
}

// wantMachine is the ELF machine of each platform's binary.
var wantMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// TestImageIndex opens the OCI layout as a registry client would and checks
// each platform's image: its platform, the binary's architecture (and that
// it is static, as scratch has no libc), the CA bundle, the user and the
// entrypoint.
func TestImageIndex(t *testing.T) {
	g := NewWithT(t)
	res := release(t)
	p, err := layout.FromPath(res.ImageLayout)
	g.Expect(err).NotTo(HaveOccurred())
	top, err := p.ImageIndex()
	g.Expect(err).NotTo(HaveOccurred())
	topManifest, err := top.IndexManifest()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(topManifest.Manifests).To(HaveLen(1))
	g.Expect(topManifest.Manifests[0].Annotations).To(HaveKeyWithValue("org.opencontainers.image.ref.name", testVersion))
	g.Expect(topManifest.Manifests[0].Digest).To(Equal(res.IndexDigest))

	idx, err := top.ImageIndex(res.IndexDigest)
	g.Expect(err).NotTo(HaveOccurred())
	manifest, err := idx.IndexManifest()
	g.Expect(err).NotTo(HaveOccurred())
	var platforms []string
	for _, desc := range manifest.Manifests {
		g.Expect(desc.Platform).NotTo(BeNil())
		platforms = append(platforms, desc.Platform.String())
		t.Run(desc.Platform.String(), func(t *testing.T) {
			g := NewWithT(t)
			img, err := idx.Image(desc.Digest)
			g.Expect(err).NotTo(HaveOccurred())
			cfg, err := img.ConfigFile()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cfg.OS).To(Equal("linux"))
			g.Expect(cfg.Architecture).To(Equal(desc.Platform.Architecture))
			g.Expect(cfg.Config.User).To(Equal("65532:65532"))
			g.Expect(cfg.Config.Entrypoint).To(Equal([]string{"/manager"}))
			g.Expect(cfg.Config.Labels).To(HaveKeyWithValue("org.opencontainers.image.version", testVersion))

			files := imageFiles(g, img)
			g.Expect(files).To(HaveKey("etc/ssl/certs/ca-certificates.crt"))
			g.Expect(string(files["etc/ssl/certs/ca-certificates.crt"])).To(ContainSubstring("-----BEGIN CERTIFICATE-----"))
			g.Expect(files).To(HaveKey("manager"))
			bin, err := elf.NewFile(bytes.NewReader(files["manager"]))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(bin.Machine).To(Equal(wantMachine[desc.Platform.Architecture]), "the binary's architecture")
			for _, prog := range bin.Progs {
				g.Expect(prog.Type).NotTo(Equal(elf.PT_INTERP), "a dynamically linked binary: scratch has no loader")
			}
		})
	}
	g.Expect(platforms).To(ConsistOf("linux/amd64", "linux/arm64"))
}

// imageFiles reads every regular file of an image's layers.
func imageFiles(g Gomega, img v1.Image) map[string][]byte {
	layers, err := img.Layers()
	g.Expect(err).NotTo(HaveOccurred())
	files := map[string][]byte{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		g.Expect(err).NotTo(HaveOccurred())
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			g.Expect(err).NotTo(HaveOccurred())
			if h.Typeflag == tar.TypeReg {
				g.Expect(h.Mode&0o004).NotTo(BeZero(), "%s is not readable by the image's user", h.Name)
				files[h.Name], err = io.ReadAll(tr)
				g.Expect(err).NotTo(HaveOccurred())
			}
		}
		rc.Close()
	}
	return files
}

// TestVersionIsStamped runs the release's binary for this machine.
func TestVersionIsStamped(t *testing.T) {
	res := release(t)
	bin := res.Binaries["linux/amd64"]
	if out, err := exec.Command("uname", "-m").Output(); err != nil || strings.TrimSpace(string(out)) != "x86_64" {
		bin = res.Binaries["linux/arm64"]
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	NewWithT(t).Expect(err).NotTo(HaveOccurred(), "%s", out)
	NewWithT(t).Expect(string(out)).To(HavePrefix("tether " + testVersion + " (go"))
}

// TestSBOM parses the SBOM with the SPDX tools and finds the modules the
// manager links, each with its package URL.
func TestSBOM(t *testing.T) {
	g := NewWithT(t)
	f, err := os.Open(release(t).SBOM)
	g.Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	doc, err := spdxjson.Read(f)
	g.Expect(err).NotTo(HaveOccurred())
	purls := map[string]string{}
	for _, p := range doc.Packages {
		for _, ref := range p.PackageExternalReferences {
			if ref.RefType == "purl" {
				purls[p.PackageName] = ref.Locator
			}
		}
	}
	g.Expect(purls).To(HaveKeyWithValue("tether", "pkg:golang/github.com/tether-dev/tether@"+testVersion))
	g.Expect(purls).To(HaveKeyWithValue("sigs.k8s.io/controller-runtime", HavePrefix("pkg:golang/sigs.k8s.io/controller-runtime@v0.")))
	g.Expect(purls).To(HaveKeyWithValue("github.com/aws/aws-sdk-go-v2/service/dynamodb", HavePrefix("pkg:golang/github.com/aws/aws-sdk-go-v2/service/dynamodb@v1.")))
	g.Expect(purls).To(HaveKeyWithValue("stdlib", HavePrefix("pkg:golang/stdlib@go1.")))
	g.Expect(len(doc.Relationships)).To(Equal(len(doc.Packages)), "DESCRIBES tether, tether DEPENDS_ON every other package")
}

// TestChecksums checks SHA256SUMS as `sha256sum -c` would, and that it
// covers every file of the release but the image layout's blobs (the
// index.json it lists names them by digest).
func TestChecksums(t *testing.T) {
	g := NewWithT(t)
	res := release(t)
	dist := filepath.Dir(res.Sums)
	raw, err := os.ReadFile(res.Sums)
	g.Expect(err).NotTo(HaveOccurred())
	listed := map[string]bool{}
	for line := range strings.Lines(string(raw)) {
		sum, name, ok := strings.Cut(strings.TrimSpace(line), "  ")
		g.Expect(ok).To(BeTrue(), line)
		content, err := os.ReadFile(filepath.Join(dist, name))
		g.Expect(err).NotTo(HaveOccurred())
		got := sha256.Sum256(content)
		g.Expect(hex.EncodeToString(got[:])).To(Equal(sum), name)
		listed[name] = true
	}
	g.Expect(listed).To(HaveLen(6))
	for _, want := range []string{"install.yaml", "tether-" + testVersion + ".tgz", "tether-" + testVersion + ".spdx.json",
		"image/index.json", "manager-linux-amd64", "manager-linux-arm64"} {
		g.Expect(listed).To(HaveKey(want))
	}
}

// TestInstallManifestNamesTheRelease: install.yaml runs the released image.
func TestInstallManifestNamesTheRelease(t *testing.T) {
	g := NewWithT(t)
	var images []string
	for _, obj := range testenv.ReadManifest(t, release(t).Install) {
		if obj.GetKind() == "Deployment" {
			d := &appsv1.Deployment{}
			g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d)).To(Succeed())
			for _, c := range d.Spec.Template.Spec.Containers {
				images = append(images, c.Image)
			}
		}
	}
	g.Expect(images).To(Equal([]string{testRepository + ":" + testVersion}))
}

// TestPackagedChartInstalls installs the packaged chart into a real API
// server with Helm's own install action (what `helm install` runs), checks
// it runs the released image, then uninstalls it: the CRDs stay (and with
// them every object of their kinds), the rest goes.
func TestPackagedChartInstalls(t *testing.T) {
	g := NewWithT(t)
	res := release(t)
	chrt, err := loader.Load(res.Chart)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(chrt.Metadata.Version).To(Equal(testVersion))
	g.Expect(chrt.Metadata.AppVersion).To(Equal(testVersion))

	assets, err := testenv.AssetsDir()
	g.Expect(err).NotTo(HaveOccurred())
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	admin, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	s := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(s)).To(Succeed())
	g.Expect(apiextensionsv1.AddToScheme(s)).To(Succeed())
	c, err := client.New(admin, client.Options{Scheme: s})
	g.Expect(err).NotTo(HaveOccurred())

	const ns = "tether-system"
	kubeconfig := testenv.AdminKubeconfig(t, env)
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig = &kubeconfig
	nsFlag := ns
	flags.Namespace = &nsFlag
	cfg := &action.Configuration{}
	g.Expect(cfg.Init(flags, ns, "secret", t.Logf)).To(Succeed())
	install := action.NewInstall(cfg)
	install.ReleaseName, install.Namespace, install.CreateNamespace = "tether", ns, true
	install.Timeout = time.Minute
	rel, err := install.Run(chrt, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rel.Info.Status.String()).To(Equal("deployed"))

	ctx := context.Background()
	var d appsv1.Deployment
	g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "tether-controller-manager"}, &d)).To(Succeed())
	g.Expect(d.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", testRepository+":"+testVersion)))
	var crds apiextensionsv1.CustomResourceDefinitionList
	g.Expect(c.List(ctx, &crds)).To(Succeed())
	g.Expect(crds.Items).To(HaveLen(6))

	_, err = action.NewUninstall(cfg).Run("tether")
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(&d), &appsv1.Deployment{}))
	}, time.Minute, 200*time.Millisecond).Should(BeTrue(), "helm uninstall left the Deployment")
	g.Expect(c.List(ctx, &crds)).To(Succeed())
	g.Expect(crds.Items).To(HaveLen(6), "helm uninstall deleted CRDs, and with them every object of their kinds")
	for _, crd := range crds.Items {
		g.Expect(crd.DeletionTimestamp).To(BeNil(), crd.Name)
	}
}

// TestSameInputsSameRelease: the image index and every file but the
// binaries' folder are the same when the release is built again from the
// same commit (reproducible: anyone can check a published digest).
func TestSameInputsSameRelease(t *testing.T) {
	g := NewWithT(t)
	res := release(t)
	root, err := testenv.RepoRoot()
	g.Expect(err).NotTo(HaveOccurred())
	again, err := Build(Options{Root: root, Version: testVersion, Out: filepath.Join(t.TempDir(), "dist"),
		ImageRepository: testRepository, CABundle: "/etc/ssl/certs/ca-certificates.crt"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again.IndexDigest).To(Equal(res.IndexDigest))
	first, err := os.ReadFile(res.Sums)
	g.Expect(err).NotTo(HaveOccurred())
	second, err := os.ReadFile(again.Sums)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(second)).To(Equal(string(first)))
}

// TestVersionMustBeSemVer: make release refuses a version a registry or
// Helm would read differently.
func TestVersionMustBeSemVer(t *testing.T) {
	for _, v := range []string{"", "v1.2.3", "1.2", "latest", "1.2.3.4"} {
		_, err := Build(Options{Root: t.TempDir(), Version: v, Out: t.TempDir(), ImageRepository: testRepository})
		NewWithT(t).Expect(err).To(MatchError(ContainSubstring("is not SemVer")), v)
	}
}
