package cluster

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/mmds-project/mmds/internal/report"
)

func testK8sPlan() K8sPlan {
	return K8sPlan{
		Name: "mmds-gauss", Image: "registry.example/mmds:1.0", Shards: 15, Parallelism: 4, CPUs: 2,
		Claim: "mmds-results", Mount: "/results", BackoffPerIndex: 3,
		Train: []string{"mmds", "train", "gauss", "--out", "/results/paper gauss", "--preset=paper"},
		After: [][]string{
			{"mmds", "train", "gauss", "--out", "/results/paper gauss", "--preset=paper", "--workers", "2"},
			{"mmds", "verify", "--report-only", "/results/paper gauss"},
			{"mmds", "plot", "/results/paper gauss"},
		},
	}
}

// decodeJob decodes a manifest strictly (an unknown or misspelt field is an
// error) into the batch/v1 Job of the Kubernetes API.
func decodeJob(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(b, &job); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Errorf("%s: %s %s", path, job.APIVersion, job.Kind)
	}
	return &job
}

// decodeConfigMap decodes the ConfigMap manifest strictly.
func decodeConfigMap(t *testing.T, path string) *corev1.ConfigMap {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(b, &cm); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return &cm
}

// checkPodPaths checks that every path a pod of job uses resolves inside
// the pod: the working folder and every absolute path among the commands'
// words (alone, or after '=') lie under one of the container's volume
// mounts, whose volume the pod declares; a path under a ConfigMap's mount
// names one of its keys, and the ConfigMap is cm.
func checkPodPaths(t *testing.T, name string, job *batchv1.Job, cm *corev1.ConfigMap) {
	t.Helper()
	pod := job.Spec.Template.Spec
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		under := func(p string) (corev1.VolumeMount, bool) {
			for _, m := range c.VolumeMounts {
				if p == m.MountPath || strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/") {
					return m, true
				}
			}
			return corev1.VolumeMount{}, false
		}
		for _, m := range c.VolumeMounts {
			if _, ok := vols[m.Name]; !ok {
				t.Errorf("%s: container %s mounts volume %q, which the pod does not declare", name, c.Name, m.Name)
			}
		}
		paths := []string{c.WorkingDir}
		for _, a := range c.Command {
			if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
				a = v
			}
			if strings.HasPrefix(a, "/") {
				paths = append(paths, a)
			}
		}
		for _, p := range paths {
			m, ok := under(p)
			if !ok {
				t.Errorf("%s: container %s uses %q, outside its volume mounts %+v", name, c.Name, p, c.VolumeMounts)
				continue
			}
			v := vols[m.Name]
			if v.ConfigMap == nil {
				continue
			}
			key := strings.TrimPrefix(strings.TrimPrefix(p, m.MountPath), "/")
			if cm == nil || v.ConfigMap.Name != cm.Name {
				t.Errorf("%s: container %s reads %q from ConfigMap %q, which is not written", name, c.Name, p, v.ConfigMap.Name)
			} else if _, ok := cm.Data[key]; !ok {
				if _, ok := cm.BinaryData[key]; !ok {
					t.Errorf("%s: container %s reads %q: ConfigMap %q has no key %q", name, c.Name, p, cm.Name, key)
				}
			}
		}
	}
}

func TestK8sPlanManifests(t *testing.T) {
	dir := t.TempDir()
	p := testK8sPlan()
	if _, err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, K8sConfigMap)); err == nil {
		t.Errorf("a plan without a model file wrote %s", K8sConfigMap)
	}
	train := decodeJob(t, filepath.Join(dir, K8sTrainJob))
	s := train.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 15 || *s.Parallelism != 4 ||
		s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 3 {
		t.Errorf("indexed job spec: %+v", s)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
		t.Fatalf("pod spec: %+v", pod)
	}
	c := pod.Containers[0]
	want := append(append([]string{}, p.Train...), "--shard", "k8s/15", "--workers", "2")
	if !reflect.DeepEqual(c.Command, want) || c.Image != p.Image || c.Resources.Limits.Cpu().Value() != 2 || c.WorkingDir != "/results" {
		t.Errorf("container: %+v", c)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/results" ||
		len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "mmds-results" {
		t.Errorf("shared volume: %+v %+v", c.VolumeMounts, pod.Volumes)
	}
	rules := s.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[0].Action != batchv1.PodFailurePolicyActionFailIndex || rules[0].OnExitCodes.Values[0] != 2 ||
		rules[1].Action != batchv1.PodFailurePolicyActionIgnore || rules[1].OnPodConditions[0].Type != "DisruptionTarget" {
		t.Errorf("pod failure policy: %+v", rules)
	}
	checkPodPaths(t, "train job", train, nil)

	merge := decodeJob(t, filepath.Join(dir, K8sMergeJob))
	mp := merge.Spec.Template.Spec
	if merge.Spec.CompletionMode != nil || len(mp.InitContainers) != 2 || len(mp.Containers) != 1 ||
		!reflect.DeepEqual(mp.InitContainers[0].Command, p.After[0]) || !reflect.DeepEqual(mp.Containers[0].Command, p.After[2]) {
		t.Errorf("merge job: %+v", mp)
	}
	checkPodPaths(t, "merge job", merge, nil)
	if out, err := exec.Command("sh", "-n", filepath.Join(dir, K8sSubmit)).CombinedOutput(); err != nil {
		t.Errorf("sh -n submit.sh: %v\n%s", err, out)
	}
}

// The model file travels in a ConfigMap mounted read-only in every pod, at
// the path the commands read: a pod reads nothing of the machine that wrote
// the manifests. Every path a pod uses resolves inside it.
func TestK8sPlanConfigMap(t *testing.T) {
	for _, c := range []struct {
		name   string
		config []byte
		binary bool
	}{
		{"UTF-8 model", []byte("{\"p\": 0.5,\n \"note\": \"line\\nbreak: '#' \u2028 $(x)\"}\n"), false},
		{"bytes that are not UTF-8", []byte{'{', 0xff, 0xfe, '}'}, true},
	} {
		dir := t.TempDir()
		p := testK8sPlan()
		p.Config = c.config
		p.Train = append(p.Train, "--config="+K8sConfigFile)
		p.After[0] = append(p.After[0], "--config="+K8sConfigFile)
		paths, err := p.Write(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(paths) != 4 || filepath.Base(paths[len(paths)-1]) != K8sSubmit {
			t.Errorf("%s: wrote %v", c.name, paths)
		}
		cm := decodeConfigMap(t, filepath.Join(dir, K8sConfigMap))
		got := []byte(cm.Data[K8sConfigKey])
		if c.binary {
			got = cm.BinaryData[K8sConfigKey]
		}
		if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" || string(got) != string(c.config) {
			t.Errorf("%s: ConfigMap %+v; want the model's bytes %q", c.name, cm, c.config)
		}
		for _, f := range []string{K8sTrainJob, K8sMergeJob} {
			job := decodeJob(t, filepath.Join(dir, f))
			checkPodPaths(t, c.name+" "+f, job, cm)
			for _, ctr := range job.Spec.Template.Spec.Containers {
				if len(ctr.VolumeMounts) != 2 || ctr.VolumeMounts[1].MountPath != K8sConfigDir || !ctr.VolumeMounts[1].ReadOnly {
					t.Errorf("%s %s: mounts %+v", c.name, f, ctr.VolumeMounts)
				}
			}
		}
		submit, _ := os.ReadFile(filepath.Join(dir, K8sSubmit))
		if !strings.Contains(string(submit), K8sConfigMap) {
			t.Errorf("%s: submit.sh does not apply the ConfigMap:\n%s", c.name, submit)
		}
	}
	// A command that reads the model with no model in the plan is refused.
	p := testK8sPlan()
	p.Train = append(p.Train, "--config="+K8sConfigFile)
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "no model file") {
		t.Errorf("--config without a model: %v", err)
	}
}

// hostile are words a hostile path or flag may hold that a YAML reader, a
// shell or an #SBATCH line would read differently if pasted raw.
var hostile = []string{
	"/results/a b", "/results/it's", `/results/"q"`, "/results/$(touch /tmp/pwned)", "/results/`id`", "/results/x;y&z|w",
	"/results/#not a comment", "/results/a: b", "- item", "*alias", "&anchor", "!tag", "{a: b}", "[1, 2]", "yes", "no", "on",
	"off", "~", "null", "1e3", "0x10", "012", "'", `"`, "\\", "%", "%%j", "@", "`", "> folded", "| literal", "..", "",
	"unicode é ü 中文", "--x=--y", "=",
}

// Every word of the commands reaches the pod exactly as given: the
// marshaller quotes what YAML would otherwise read as another type, a
// comment, an alias or a tag, and a strict decoder into the Kubernetes API
// gets the same argv back.
func TestK8sManifestsQuoteEveryWord(t *testing.T) {
	dir := t.TempDir()
	p := testK8sPlan()
	p.Train = append([]string{"mmds", "train", "gauss"}, hostile...)
	p.After = [][]string{append([]string{"mmds", "plot"}, hostile...)}
	p.Image = "registry.example/mmds:1.0@sha256:" + strings.Repeat("0", 64)
	if _, err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	job := decodeJob(t, filepath.Join(dir, K8sTrainJob))
	want := append(append([]string{}, p.Train...), "--shard", "k8s/15", "--workers", "2")
	if got := job.Spec.Template.Spec.Containers[0].Command; !reflect.DeepEqual(got, want) || job.Spec.Template.Spec.Containers[0].Image != p.Image {
		t.Errorf("argv round trip:\n got %q\nwant %q", got, want)
	}
	merge := decodeJob(t, filepath.Join(dir, K8sMergeJob))
	if got := merge.Spec.Template.Spec.Containers[0].Command; !reflect.DeepEqual(got, p.After[0]) {
		t.Errorf("merge argv round trip:\n got %q\nwant %q", got, p.After[0])
	}
}

// A value that reaches a manifest with a control character, a line or
// paragraph separator, a bidirectional control or bytes that are not UTF-8
// is refused before anything is written; so is a claim or mount path
// Kubernetes would reject.
func TestK8sPlanValidate(t *testing.T) {
	for name, edit := range map[string]func(*K8sPlan){
		"name":                 func(p *K8sPlan) { p.Name = "Mmds_Gauss" },
		"image":                func(p *K8sPlan) { p.Image = "" },
		"image with a newline": func(p *K8sPlan) { p.Image = "reg.example/mmds\n- evil" },
		"image with U+2028":    func(p *K8sPlan) { p.Image = "reg.example/mmds\u2028x" },
		"parallelism":          func(p *K8sPlan) { p.Parallelism = 16 },
		"shards":               func(p *K8sPlan) { p.Shards = 0 },
		"mount":                func(p *K8sPlan) { p.Mount = "results" },
		"mount /":              func(p *K8sPlan) { p.Mount = "/" },
		"mount unclean":        func(p *K8sPlan) { p.Mount = "/results/../etc" },
		"mount on the model":   func(p *K8sPlan) { p.Mount = K8sConfigDir },
		"cpus":                 func(p *K8sPlan) { p.CPUs = 0 },
		"claim":                func(p *K8sPlan) { p.Claim = "My Claim" },
		"claim with a newline": func(p *K8sPlan) { p.Claim = "a.b\nc" },
		"argv newline":         func(p *K8sPlan) { p.Train = append(p.Train, "--out=/results/x\nrm -rf /") },
		"argv tab":             func(p *K8sPlan) { p.Train = append(p.Train, "/results/a\tb") },
		"argv U+2028":          func(p *K8sPlan) { p.After[1] = append(p.After[1], "/results/a\u2028b") },
		"argv U+2029":          func(p *K8sPlan) { p.After[1] = append(p.After[1], "/results/a\u2029b") },
		"argv NEL":             func(p *K8sPlan) { p.After[1] = append(p.After[1], "/results/a\u0085b") },
		"argv bidi override":   func(p *K8sPlan) { p.After[1] = append(p.After[1], "/results/\u202egpj.exe") },
		"argv not UTF-8":       func(p *K8sPlan) { p.After[1] = append(p.After[1], "/results/\xff") },
		"argv DEL":             func(p *K8sPlan) { p.After[1] = append(p.After[1], "/results/\x7f") },
		"model too large":      func(p *K8sPlan) { p.Config = make([]byte, maxConfigMapBytes+1) },
	} {
		p := testK8sPlan()
		p.After = [][]string{append([]string{}, p.After[0]...), append([]string{}, p.After[1]...), append([]string{}, p.After[2]...)}
		edit(&p)
		dir := filepath.Join(t.TempDir(), "k8s")
		if _, err := p.Write(dir); err == nil {
			t.Errorf("%s: Write accepted %+v", name, p)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the message spans lines: %q", name, err)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: the folder was created", name)
		}
	}
}

// The manifests go to a folder marked as mmds's (report.K8sJobs): a folder
// of the user's own files (one with a submit.sh of theirs), reached by name
// or through a symbolic link, or a folder of another kind, is refused and
// left as it was; a marked folder is rewritten.
func TestK8sPlanFolder(t *testing.T) {
	root := t.TempDir()
	mine := filepath.Join(root, "mine")
	os.Mkdir(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "submit.sh"), []byte("#!/bin/sh\necho mine\n"), 0o755)
	os.Symlink(mine, filepath.Join(root, "link"))
	slurm := filepath.Join(root, "slurm")
	os.Mkdir(slurm, 0o755)
	os.WriteFile(filepath.Join(slurm, report.MarkerFile), []byte("slurm-jobs\n"), 0o644)
	for _, dir := range []string{mine, filepath.Join(root, "link"), slurm} {
		if _, err := testK8sPlan().Write(dir); !errors.Is(err, report.ErrKind) {
			t.Errorf("%s: %v; want ErrKind", dir, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(mine, "submit.sh")); string(b) != "#!/bin/sh\necho mine\n" {
		t.Errorf("the user's submit.sh now holds %q", b)
	}
	if ents, _ := os.ReadDir(mine); len(ents) != 1 {
		t.Errorf("files were added to the user's folder: %v", ents)
	}
	dir := filepath.Join(root, "k8s")
	for range 2 {
		if _, err := testK8sPlan().Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	if k, err := report.ReadKind(dir); k != report.K8sJobs || err != nil {
		t.Errorf("marker %q, %v", k, err)
	}
}

// Two runs name different Jobs and ConfigMaps; the same run the same ones,
// and the name stays a DNS label with room for "-merge".
func TestJobName(t *testing.T) {
	a := JobName("mmds-binary", []string{"mmds", "train", "binary", "--d=0.1"}, []byte(`{"p": 0.5}`))
	for _, tc := range []struct {
		name   string
		train  []string
		config []byte
		same   bool
	}{
		{"the same run", []string{"mmds", "train", "binary", "--d=0.1"}, []byte(`{"p": 0.5}`), true},
		{"another threshold", []string{"mmds", "train", "binary", "--d=0.2"}, []byte(`{"p": 0.5}`), false},
		{"another model", []string{"mmds", "train", "binary", "--d=0.1"}, []byte(`{"p": 0.6}`), false},
		{"words split differently", []string{"mmds", "train", "binary--d=0.1"}, []byte(`{"p": 0.5}`), false},
	} {
		b := JobName("mmds-binary", tc.train, tc.config)
		if (a == b) != tc.same {
			t.Errorf("%s: %q vs %q", tc.name, a, b)
		}
		if len(b+"-merge") > 63 || !dnsName.MatchString(b+"-merge") {
			t.Errorf("%s: %q is not a DNS label", tc.name, b)
		}
	}
}
