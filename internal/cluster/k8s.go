package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mmds-project/mmds/internal/report"
)

// K8sPlan is a sharded run as Kubernetes Jobs: an Indexed Job of Shards
// completions, each pod running Train with --shard k8s/Shards, and a merge
// Job that runs After in order (as init containers and then the main
// container). Every pod mounts one ReadWriteMany PersistentVolumeClaim at
// Mount, where --out lies.
//
// Exit 75 ("run me again later") fails the pod, and the index is retried up
// to BackoffPerIndex times (backoffLimitPerIndex); exit 2 (bad input) fails
// the index at once; a pod evicted or preempted (condition DisruptionTarget)
// is retried without counting. Kubernetes has no dependency between Jobs:
// submit.sh applies the Indexed Job, waits until it is Complete or Failed
// (failed indices leave thresholds the merge trains), then applies the merge
// Job.
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
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,50}[a-z0-9])?$`)

// Validate reports the first field Kubernetes would reject or that would make
// the manifests wrong.
func (p K8sPlan) Validate() error {
	switch {
	case !dnsLabel.MatchString(p.Name):
		return fmt.Errorf("kubernetes job name %q: want 1–52 lower-case letters, digits or '-'", p.Name)
	case !dnsLabel.MatchString(p.Claim) && !strings.Contains(p.Claim, "."):
		return fmt.Errorf("kubernetes volume claim %q: want a DNS name", p.Claim)
	case p.Image == "" || strings.ContainsAny(p.Image, " \t\n"):
		return fmt.Errorf("kubernetes image %q: want an image reference", p.Image)
	case p.Shards < 1 || p.Shards > MaxShards:
		return fmt.Errorf("kubernetes completions %d: want [1, %d]", p.Shards, MaxShards)
	case p.Parallelism < 1 || p.Parallelism > p.Shards:
		return fmt.Errorf("kubernetes parallelism %d: want [1, %d]", p.Parallelism, p.Shards)
	case p.CPUs < 1:
		return fmt.Errorf("kubernetes CPUs per pod %d: want ≥ 1", p.CPUs)
	case !filepath.IsAbs(p.Mount):
		return fmt.Errorf("kubernetes mount path %q: want an absolute path", p.Mount)
	case p.BackoffPerIndex < 0:
		return fmt.Errorf("kubernetes retries per index %d: want ≥ 0", p.BackoffPerIndex)
	case len(p.Train) == 0 || len(p.After) == 0:
		return fmt.Errorf("kubernetes plan: no training or merge command")
	}
	return nil
}

// Files of a Kubernetes plan, written into one directory by Write.
const (
	K8sTrainJob = "train-job.yaml"
	K8sMergeJob = "merge-job.yaml"
	K8sSubmit   = "submit.sh"
)

// Write writes the two manifests and submit.sh into dir, atomically, and
// returns their paths.
func (p K8sPlan) Write(dir string) ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("kubernetes manifests: %w", err)
	}
	var paths []string
	for _, f := range []struct{ name, text string }{
		{K8sTrainJob, p.trainJob()}, {K8sMergeJob, p.mergeJob()}, {K8sSubmit, p.submit()},
	} {
		path := filepath.Join(dir, f.name)
		err := report.WriteAtomic(path, func(w io.Writer) error {
			_, err := io.WriteString(w, f.text)
			return err
		})
		if err == nil && f.name == K8sSubmit {
			err = os.Chmod(path, 0o755)
		}
		if err != nil {
			return nil, fmt.Errorf("kubernetes manifests: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// q quotes a string as YAML: a JSON string is a YAML double-quoted scalar.
func q(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

func qs(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = q(a)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// container writes one container at the given indentation.
func (p K8sPlan) container(ind, name string, argv []string) string {
	return fmt.Sprintf(`%[1]s- name: %[2]s
%[1]s  image: %[3]s
%[1]s  command: %[4]s
%[1]s  resources:
%[1]s    requests: {cpu: "%[5]d"}
%[1]s    limits: {cpu: "%[5]d"}
%[1]s  volumeMounts:
%[1]s  - {name: results, mountPath: %[6]s}
`, ind, name, q(p.Image), qs(argv), p.CPUs, q(p.Mount))
}

func (p K8sPlan) volumes(ind string) string {
	return fmt.Sprintf("%[1]svolumes:\n%[1]s- name: results\n%[1]s  persistentVolumeClaim: {claimName: %[2]s}\n", ind, q(p.Claim))
}

func (p K8sPlan) trainJob() string {
	argv := append(append([]string{}, p.Train...), "--shard", fmt.Sprintf("k8s/%d", p.Shards), "--workers", fmt.Sprint(p.CPUs))
	return fmt.Sprintf(`# Written by mmds train --k8s: shard i of n is the pod of completion index i-1
# (thresholds D_d with d mod n = i-1). Apply with submit.sh beside it.
apiVersion: batch/v1
kind: Job
metadata:
  name: %[1]s
  labels: {app: mmds}
spec:
  completionMode: Indexed
  completions: %[2]d
  parallelism: %[3]d
  backoffLimitPerIndex: %[4]d
  podFailurePolicy:
    rules:
    # Bad input (exit 2) does not get better by retrying.
    - action: FailIndex
      onExitCodes: {containerName: mmds, operator: In, values: [2]}
    # An evicted or preempted pod is retried without counting against the index.
    - action: Ignore
      onPodConditions:
      - {type: DisruptionTarget}
  template:
    metadata:
      labels: {app: mmds}
    spec:
      restartPolicy: Never
      containers:
%[5]s%[6]s`, q(p.Name), p.Shards, p.Parallelism, p.BackoffPerIndex, p.container("      ", "mmds", argv), p.volumes("      "))
}

func (p K8sPlan) mergeJob() string {
	var inits strings.Builder
	for i, c := range p.After[:len(p.After)-1] {
		inits.WriteString(p.container("      ", fmt.Sprintf("step-%d", i+1), c))
	}
	initBlock := ""
	if inits.Len() > 0 {
		initBlock = "      initContainers:\n" + inits.String()
	}
	return fmt.Sprintf(`# Written by mmds train --k8s: merges the shards (training what they left),
# then verifies and plots. Apply it once the Indexed Job has ended (submit.sh).
apiVersion: batch/v1
kind: Job
metadata:
  name: %[1]s
  labels: {app: mmds}
spec:
  backoffLimit: 6
  template:
    metadata:
      labels: {app: mmds}
    spec:
      restartPolicy: Never
%[2]s      containers:
%[3]s%[4]s`, q(p.Name+"-merge"), initBlock, p.container("      ", "mmds", p.After[len(p.After)-1]), p.volumes("      "))
}

func (p K8sPlan) submit() string {
	return fmt.Sprintf(`#!/bin/sh
# Applies the Indexed Job, waits until it has ended (Complete or Failed: failed
# indices leave thresholds that the merge trains), then applies the merge Job.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kubectl apply -f "$here/%[1]s"
while :; do
	c=$(kubectl get job %[2]s -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}')
	case " $c " in *" Complete "*|*" Failed "*) break ;; esac
	sleep 10
done
kubectl apply -f "$here/%[3]s"
echo "merge job %[4]s applied; follow it with: kubectl logs -f job/%[4]s"
`, K8sTrainJob, p.Name, K8sMergeJob, p.Name+"-merge")
}
