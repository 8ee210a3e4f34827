package cluster

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
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

func TestK8sPlanManifests(t *testing.T) {
	dir := t.TempDir()
	p := testK8sPlan()
	if _, err := p.Write(dir); err != nil {
		t.Fatal(err)
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
	if !reflect.DeepEqual(c.Command, want) || c.Image != p.Image || c.Resources.Limits.Cpu().Value() != 2 {
		t.Errorf("container: %+v", c)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/results" ||
		len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "mmds-results" {
		t.Errorf("shared volume: %+v %+v", c.VolumeMounts, pod.Volumes)
	}
	rules := s.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[0].Action != batchv1.PodFailurePolicyActionFailIndex || rules[0].OnExitCodes.Values[0] != 2 {
		t.Errorf("pod failure policy: %+v", rules)
	}

	merge := decodeJob(t, filepath.Join(dir, K8sMergeJob))
	mp := merge.Spec.Template.Spec
	if merge.Spec.CompletionMode != nil || len(mp.InitContainers) != 2 || len(mp.Containers) != 1 ||
		!reflect.DeepEqual(mp.InitContainers[0].Command, p.After[0]) || !reflect.DeepEqual(mp.Containers[0].Command, p.After[2]) {
		t.Errorf("merge job: %+v", mp)
	}
}

func TestK8sPlanValidate(t *testing.T) {
	for name, edit := range map[string]func(*K8sPlan){
		"name":        func(p *K8sPlan) { p.Name = "Mmds_Gauss" },
		"image":       func(p *K8sPlan) { p.Image = "" },
		"parallelism": func(p *K8sPlan) { p.Parallelism = 16 },
		"shards":      func(p *K8sPlan) { p.Shards = 0 },
		"mount":       func(p *K8sPlan) { p.Mount = "results" },
		"cpus":        func(p *K8sPlan) { p.CPUs = 0 },
	} {
		p := testK8sPlan()
		edit(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, p)
		}
	}
}
