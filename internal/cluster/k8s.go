package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/mmds-project/mmds/internal/report"
)

// K8sPlan is a sharded run as Kubernetes Jobs: an Indexed Job of Shards
// completions, each pod running Train with --shard k8s/Shards, and a merge
// Job that runs After in order (as init containers and then the main
// container). Every pod mounts one ReadWriteMany PersistentVolumeClaim at
// Mount, where --out lies, and works there; a model file (Config) travels
// in a ConfigMap mounted read-only at K8sConfigDir, so a pod reads nothing
// of the machine that wrote the manifests.
//
// Exit 75 ("run me again later") fails the pod, and the index is retried up
// to BackoffPerIndex times (backoffLimitPerIndex); exit 2 (bad input) fails
// the index at once; a pod evicted or preempted (condition DisruptionTarget)
// is retried without counting. Kubernetes has no dependency between Jobs:
// submit.sh applies the ConfigMap and the Indexed Job, waits until it is
// Complete or Failed (failed indices leave thresholds the merge trains),
// then applies the merge Job.
//
// The manifests are written by a marshaller (sigs.k8s.io/yaml), never by
// pasting values into text, and every value is checked with CheckText.
type K8sPlan struct {
	Name            string     // Job name prefix: a DNS label
	Image           string     // container image holding mmds
	Shards          int        // completions, 1…MaxShards
	Parallelism     int        // pods at once, 1…Shards
	CPUs            int        // CPU request and limit per pod; also --workers
	Claim           string     // PersistentVolumeClaim holding the results
	Mount           string     // absolute mount path of Claim in the pods
	BackoffPerIndex int        // retries per index
	Train           []string   // argv of the training command, without --shard
	After           [][]string // argv of each command of the merge Job
	// Config is the model file the commands read at K8sConfigFile (nil:
	// none); it is written as a ConfigMap beside the Jobs.
	Config []byte
}

// Where the ConfigMap holding K8sPlan.Config is mounted in every pod, and
// the file the commands read.
const (
	K8sConfigDir  = "/etc/mmds"
	K8sConfigKey  = "model.json"
	K8sConfigFile = K8sConfigDir + "/" + K8sConfigKey
)

// maxConfigMapBytes is Kubernetes's limit on a ConfigMap's data.
const maxConfigMapBytes = 1 << 20

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,50}[a-z0-9])?$`)

// JobName returns the Job name prefix of a run: prefix, then 10 hex digits
// of the SHA-256 of its training command and model file, so that two runs
// of the same kind in one namespace never share a Job or a ConfigMap (a
// second kubectl apply would replace the first run's model for its retried
// pods), while writing the same run again names the same objects.
func JobName(prefix string, train []string, config []byte) string {
	h := sha256.New()
	for _, a := range train {
		fmt.Fprintf(h, "%d:%s\n", len(a), a)
	}
	h.Write(config)
	return prefix + "-" + hex.EncodeToString(h.Sum(nil))[:10]
}

// dnsName is a DNS subdomain (RFC 1123), as a claim's name must be.
var dnsName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// Validate reports the first field Kubernetes would reject or that would make
// the manifests wrong.
func (p K8sPlan) Validate() error {
	switch {
	case !dnsLabel.MatchString(p.Name):
		return fmt.Errorf("kubernetes job name %q: want 1–52 lower-case letters, digits or '-'", p.Name)
	case len(p.Claim) > 253 || !dnsName.MatchString(p.Claim):
		return fmt.Errorf("kubernetes volume claim %s: want a DNS name (lower-case letters, digits, '-' and '.')", report.Quote(p.Claim))
	case p.Image == "" || strings.ContainsAny(p.Image, " \t\n"):
		return fmt.Errorf("kubernetes image %s: want an image reference", report.Quote(p.Image))
	case p.Shards < 1 || p.Shards > MaxShards:
		return fmt.Errorf("kubernetes completions %d: want [1, %d]", p.Shards, MaxShards)
	case p.Parallelism < 1 || p.Parallelism > p.Shards:
		return fmt.Errorf("kubernetes parallelism %d: want [1, %d]", p.Parallelism, p.Shards)
	case p.CPUs < 1:
		return fmt.Errorf("kubernetes CPUs per pod %d: want ≥ 1", p.CPUs)
	case !path.IsAbs(p.Mount) || path.Clean(p.Mount) != p.Mount || p.Mount == "/" || p.Mount == K8sConfigDir:
		return fmt.Errorf("kubernetes mount path %q: want a clean absolute path other than / and %s", p.Mount, K8sConfigDir)
	case p.BackoffPerIndex < 0:
		return fmt.Errorf("kubernetes retries per index %d: want ≥ 0", p.BackoffPerIndex)
	case len(p.Train) == 0 || len(p.After) == 0:
		return fmt.Errorf("kubernetes plan: no training or merge command")
	case len(p.Config) > maxConfigMapBytes:
		return fmt.Errorf("kubernetes plan: the model file has %d bytes; a ConfigMap holds at most %d", len(p.Config), maxConfigMapBytes)
	}
	if err := CheckText("kubernetes image", p.Image); err != nil {
		return err
	}
	for _, c := range append([][]string{p.Train}, p.After...) {
		if err := checkArgv("kubernetes command: argument", c); err != nil {
			return err
		}
		for _, a := range c {
			if strings.Contains(a, K8sConfigDir+"/") && p.Config == nil {
				return fmt.Errorf("kubernetes command: argument %s reads %s, but the plan has no model file to put there", report.Quote(a), K8sConfigDir)
			}
		}
	}
	return nil
}

// Files of a Kubernetes plan, written into one directory by Write.
const (
	K8sTrainJob  = "train-job.yaml"
	K8sMergeJob  = "merge-job.yaml"
	K8sConfigMap = "config-map.yaml"
	K8sSubmit    = "submit.sh"
)

// Write writes the manifests (the ConfigMap only with a model file) and
// submit.sh into dir, atomically, and returns their paths. dir is created
// and marked as report.K8sJobs; a folder of another kind, or a non-empty
// one without the marker (a folder of the user's own files), is refused
// before anything is written.
func (p K8sPlan) Write(dir string) ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	manifests := []struct {
		name string
		obj  any
	}{{K8sTrainJob, p.trainJob()}, {K8sMergeJob, p.mergeJob()}, {K8sConfigMap, p.configMap()}}
	if p.Config == nil {
		manifests = manifests[:2]
	}
	var files []planFile
	for _, m := range manifests {
		b, err := yaml.Marshal(m.obj)
		if err != nil {
			return nil, fmt.Errorf("kubernetes manifests: %w", err)
		}
		files = append(files, planFile{m.name, append([]byte(manifestHeader), b...), false})
	}
	files = append(files, planFile{K8sSubmit, []byte(p.submit()), true})
	return writePlan(dir, report.K8sJobs, "kubernetes manifests", files)
}

const manifestHeader = "# Written by mmds train --k8s; apply with submit.sh beside it.\n"

// The subset of the Kubernetes API the manifests use, in its field names
// (internal/cluster/k8s_test.go decodes them strictly into k8s.io/api).
type (
	k8sMeta struct {
		Name   string            `json:"name,omitempty"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	k8sJob struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   k8sMeta    `json:"metadata"`
		Spec       k8sJobSpec `json:"spec"`
	}
	k8sJobSpec struct {
		CompletionMode       string            `json:"completionMode,omitempty"`
		Completions          *int              `json:"completions,omitempty"`
		Parallelism          *int              `json:"parallelism,omitempty"`
		BackoffLimit         *int              `json:"backoffLimit,omitempty"`
		BackoffLimitPerIndex *int              `json:"backoffLimitPerIndex,omitempty"`
		PodFailurePolicy     *podFailurePolicy `json:"podFailurePolicy,omitempty"`
		Template             podTemplate       `json:"template"`
	}
	podFailurePolicy struct {
		Rules []podFailureRule `json:"rules"`
	}
	podFailureRule struct {
		Action          string         `json:"action"`
		OnExitCodes     *onExitCodes   `json:"onExitCodes,omitempty"`
		OnPodConditions []podCondition `json:"onPodConditions,omitempty"`
	}
	onExitCodes struct {
		ContainerName string  `json:"containerName"`
		Operator      string  `json:"operator"`
		Values        []int32 `json:"values"`
	}
	podCondition struct {
		Type   string `json:"type"`
		Status string `json:"status"`
	}
	podTemplate struct {
		Metadata k8sMeta `json:"metadata"`
		Spec     podSpec `json:"spec"`
	}
	podSpec struct {
		RestartPolicy  string      `json:"restartPolicy"`
		InitContainers []container `json:"initContainers,omitempty"`
		Containers     []container `json:"containers"`
		Volumes        []volume    `json:"volumes"`
	}
	container struct {
		Name         string        `json:"name"`
		Image        string        `json:"image"`
		Command      []string      `json:"command"`
		WorkingDir   string        `json:"workingDir"`
		Resources    resources     `json:"resources"`
		VolumeMounts []volumeMount `json:"volumeMounts"`
	}
	resources struct {
		Requests map[string]string `json:"requests"`
		Limits   map[string]string `json:"limits"`
	}
	volumeMount struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
		ReadOnly  bool   `json:"readOnly,omitempty"`
	}
	volume struct {
		Name                  string           `json:"name"`
		PersistentVolumeClaim *claimSource     `json:"persistentVolumeClaim,omitempty"`
		ConfigMap             *configMapSource `json:"configMap,omitempty"`
	}
	claimSource struct {
		ClaimName string `json:"claimName"`
	}
	configMapSource struct {
		Name string `json:"name"`
	}
	k8sConfigMap struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   k8sMeta           `json:"metadata"`
		Data       map[string]string `json:"data,omitempty"`
		BinaryData map[string][]byte `json:"binaryData,omitempty"`
	}
)

var appLabels = map[string]string{"app": "mmds"}

func (p K8sPlan) configName() string { return p.Name + "-model" }

// container is one container running argv, with the results claim (and
// the model's ConfigMap) mounted, working in the results claim.
func (p K8sPlan) container(name string, argv []string) container {
	cpu := strconv.Itoa(p.CPUs)
	c := container{Name: name, Image: p.Image, Command: argv, WorkingDir: p.Mount,
		Resources:    resources{Requests: map[string]string{"cpu": cpu}, Limits: map[string]string{"cpu": cpu}},
		VolumeMounts: []volumeMount{{Name: "results", MountPath: p.Mount}}}
	if p.Config != nil {
		c.VolumeMounts = append(c.VolumeMounts, volumeMount{Name: "model", MountPath: K8sConfigDir, ReadOnly: true})
	}
	return c
}

func (p K8sPlan) volumes() []volume {
	v := []volume{{Name: "results", PersistentVolumeClaim: &claimSource{ClaimName: p.Claim}}}
	if p.Config != nil {
		v = append(v, volume{Name: "model", ConfigMap: &configMapSource{Name: p.configName()}})
	}
	return v
}

func (p K8sPlan) trainJob() k8sJob {
	argv := append(append([]string{}, p.Train...), "--shard", fmt.Sprintf("k8s/%d", p.Shards), "--workers", strconv.Itoa(p.CPUs))
	shards, par, backoff := p.Shards, p.Parallelism, p.BackoffPerIndex
	return k8sJob{APIVersion: "batch/v1", Kind: "Job", Metadata: k8sMeta{Name: p.Name, Labels: appLabels},
		Spec: k8sJobSpec{
			CompletionMode: "Indexed", Completions: &shards, Parallelism: &par, BackoffLimitPerIndex: &backoff,
			PodFailurePolicy: &podFailurePolicy{Rules: []podFailureRule{
				// Bad input (exit 2) does not get better by retrying.
				{Action: "FailIndex", OnExitCodes: &onExitCodes{ContainerName: "mmds", Operator: "In", Values: []int32{2}}},
				// An evicted or preempted pod is retried without counting against the index.
				{Action: "Ignore", OnPodConditions: []podCondition{{Type: "DisruptionTarget", Status: "True"}}},
			}},
			Template: podTemplate{Metadata: k8sMeta{Labels: appLabels}, Spec: podSpec{
				RestartPolicy: "Never", Containers: []container{p.container("mmds", argv)}, Volumes: p.volumes()}},
		}}
}

func (p K8sPlan) mergeJob() k8sJob {
	var inits []container
	for i, c := range p.After[:len(p.After)-1] {
		inits = append(inits, p.container(fmt.Sprintf("step-%d", i+1), c))
	}
	backoff := 6
	return k8sJob{APIVersion: "batch/v1", Kind: "Job", Metadata: k8sMeta{Name: p.Name + "-merge", Labels: appLabels},
		Spec: k8sJobSpec{BackoffLimit: &backoff,
			Template: podTemplate{Metadata: k8sMeta{Labels: appLabels}, Spec: podSpec{
				RestartPolicy: "Never", InitContainers: inits,
				Containers: []container{p.container("mmds", p.After[len(p.After)-1])}, Volumes: p.volumes()}},
		}}
}

// configMap holds the model file: as text when it is UTF-8, else base64
// (binaryData).
func (p K8sPlan) configMap() k8sConfigMap {
	cm := k8sConfigMap{APIVersion: "v1", Kind: "ConfigMap", Metadata: k8sMeta{Name: p.configName(), Labels: appLabels}}
	if utf8.Valid(p.Config) {
		cm.Data = map[string]string{K8sConfigKey: string(p.Config)}
	} else {
		cm.BinaryData = map[string][]byte{K8sConfigKey: p.Config}
	}
	return cm
}

func (p K8sPlan) submit() string {
	apply := `kubectl apply -f "$here/` + K8sTrainJob + `"`
	if p.Config != nil {
		apply = `kubectl apply -f "$here/` + K8sConfigMap + `"` + "\n" + apply
	}
	job, merge := shellQuote(p.Name), shellQuote(p.Name+"-merge")
	return `#!/bin/sh
# Applies the model's ConfigMap (when there is one) and the Indexed Job, waits
# until the Job has ended (Complete or Failed: failed indices leave thresholds
# that the merge trains), then applies the merge Job.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
` + apply + `
while :; do
	c=$(kubectl get job ` + job + ` -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}')
	case " $c " in *" Complete "*|*" Failed "*) break ;; esac
	sleep 10
done
kubectl apply -f "$here/` + K8sMergeJob + `"
echo "merge job "` + merge + `" applied; follow it with: kubectl logs -f job/"` + merge + `
`
}
