// Package rundir is the results directory of mmds train: the one place a run
// lives, and the files through which its writers coordinate.
//
//	DIR/results.json          the run's results (learn.Results): the configuration, per threshold the finalized point
//	DIR/model.json            the model the data were drawn from, in its --config format
//	DIR/trials/dDD_tTTT.json  a trial record (TrialFile): per trial, the per-epoch history and networks
//	DIR/points/dDD.json       a point record (PointFile): what a shard publishes per threshold
//	DIR/points/shards         the shard count n of the run's shards (LayoutFile)
//	DIR/.lock, DIR/.lock-shard-i-of-n  the writers' locks (Dir.Lock)
//	DIR/.mmds-kind            the marker "results" (internal/report.Results)
//	DIR/NAME                  a run on a user's data: an optional copy of its data file (Dir.WriteDataCopy)
//
// Dir alone reads and writes these files; what they hold is package learn's.
// results.json binds itself to the rest (Binding): the configuration records
// the SHA-256 of the model's canonical encoding, Binding.ConfigSHA256 is the
// hash of the configuration (HashJSON), and every point carries the hash of
// what it finalized, so an edit after training is detected by whoever reads
// the directory.
//
// # Locks
//
// The writers of a results directory exclude each other with POSIX record
// locks over whole files (open file description locks, which cluster file
// systems keep coherent between nodes; lock_linux.go):
//
//	DIR/.lock               the run's lock: held exclusively by a whole-run writer
//	                        (a sweep without a shard, which also merges), shared by
//	                        every shard writer
//	DIR/.lock-shard-i-of-n  shard i of n's own lock, held exclusively by its writer
//	DIR/points/shards       the shard count n the directory is bound to
//
// so a whole run excludes every shard and every shard the whole run, shards
// of one run exclude only a second writer of the same shard, and shards of a
// different count are refused (their thresholds overlap). The kernel releases
// such a lock however its holder exits, so a killed holder's lock is free at
// once. Lock probes, before any work, that locking works on the directory's
// file system: a failing lock call, a lock that is not enforced, or a mount
// that keeps locks on one node is refused (ErrNoLocking) naming the file
// system.
// Lock files are never unlinked: release is close. (Unlinking before release
// lets a newcomer lock a fresh file of the same name while the old holder
// still holds the unlinked one: two writers.)
//
// A lock file holds its holder's record, "pid N on HOST since TIME": advisory,
// for messages only. Release clears it, so a record found when taking a lock
// is that of a holder that died. Lock files are opened without following
// symbolic links and must be regular files with one link; anything else, or
// content that is not such a record, is refused (ErrLockFile) rather than
// overwritten.
//
// # Shards
//
// A sharded run trains only the thresholds its shard owns
// (cluster.Shard.Owns) into a directory every shard shares. The selection
// protocol of Section V accepts a trial at D_d only if it beats the point
// finalized at D_{d−1}, so each shard publishes, per threshold it finishes,
// a point record that the shard owning the next threshold (Owner) reads.
// A shard waiting for a record waits only while that record's owner is
// running (Dir.ShardAlive: its shard lock is held); Wait describes the wait.
package rundir
