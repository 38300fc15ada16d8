"""Run `vision` tasks over many photos and videos with Ray Data.

Each Ray actor holds one `vision TASK --stdin --json` child process (the worker mode of the command line)
and feeds it batches of paths; the child's records are mapped back to rows. Ray Data does the rest:
scheduling, retries (a child that dies takes its actor with it, and Ray restarts the actor and retries the
batch), writing, and resuming a stopped job from its checkpoint.

    import tasksvision_ray
    tasksvision_ray.run("pose", ["photos/", "clip.mp4"], "out/")        # JSON lines in out/

Output rows are the objects `vision` prints, one per frame and one per failed input:
`{"input": PATH, "file": ..., "frame": ..., "width": ..., "height": ..., "timestampMs": ..., "result": ...}`
or `{"input": PATH, "error": "..."}`. With `format="json"` (the default) the files hold `vision`'s own lines,
byte for byte; with `format="parquet"` the same fields are columns (`result` as JSON text).

See README.md beside this file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from typing import Dict, Iterable, List, Optional, Sequence

import numpy as np
import pyarrow as pa

import ray
import ray.data
from ray.data.block import BlockAccessor
from ray.data.checkpoint import CheckpointConfig
from ray.data.datasource.file_datasink import BlockBasedFileDatasink

# The column that names an input: the id column of Ray Data's checkpoint, and the first field of every record.
INPUT = "input"
# Input rows are read from this file beside the checkpoint (a checkpoint needs a Ray Data read as its source).
INPUTS_FILE = "inputs.jsonl"
# Parquet columns, from the record's fields.
PARQUET_FIELDS = ("file", "frame", "width", "height", "timestampMs")
# A file the tests kill a child through: each child writes its process id here, one a line.
PID_LOG_ENV = "TASKSVISION_RAY_PID_LOG"


class VisionChildDied(RuntimeError):
    """The `vision` child ended before answering for every input of a batch."""


class VisionWorker:
    """A `map_batches` callable class: one `vision TASK --stdin --json` child per actor.

    Each batch's paths are written to the child's standard input (on a thread, so a long batch cannot
    fill both pipes); its records are read back until every path has its `done` record. Records become
    rows `{"input": PATH, "record": JSON line}`. If the child dies, the actor process exits: Ray restarts the
    actor (with a new child) and retries the batch, so a crash costs one batch, not the job.
    """

    def __init__(self, task: str, vision: str = "vision", threads: int = 1, jobs: int = 1,
                 args: Sequence[str] = ()):
        self.command = [vision, task, "--stdin", "--json", "--threads", str(threads)]
        if jobs > 1:
            self.command = [vision, task, "--stdin", "--json", "--jobs", str(jobs)]
        self.command += list(args)
        try:
            self.child = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          text=True, encoding="utf-8", bufsize=1)
        except OSError as error:
            raise RuntimeError(f"cannot start {vision} on this node ({error}): give run() vision=PATH, or put "
                               f"vision on every node's PATH") from error
        log = os.environ.get(PID_LOG_ENV)
        if log:
            with open(log, "a") as f:
                f.write(f"{self.child.pid}\n")

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, List[str]]:
        paths = [str(p) for p in batch[INPUT]]
        try:
            return self._run(paths)
        except (VisionChildDied, BrokenPipeError, OSError) as error:
            # The actor goes with its child: Ray restarts it (max_restarts) and retries the batch
            # (max_task_retries). An exception would instead fail the batch as the user's error.
            print(f"tasksvision_ray: {error}; restarting the actor", file=sys.stderr, flush=True)
            os._exit(1)

    def _run(self, paths: List[str]) -> Dict[str, List[str]]:
        if self.child.poll() is not None:
            raise VisionChildDied(f"vision exited with status {self.child.returncode} before the batch")
        inputs: List[str] = []
        records: List[str] = []
        sent: List[str] = []
        for p in paths:
            if "\n" in p or "\r" in p:
                # A line break cannot cross the line protocol: the input's error row, as vision would write it.
                inputs.append(p)
                records.append(json.dumps({INPUT: p, "error": f"{p}: a path with a line break cannot be read"},
                                          separators=(",", ":"), ensure_ascii=False))
            else:
                sent.append(p)
        # A path with a tab goes as ID<TAB>PATH with an empty id, so that its tab is not taken for the separator.
        lines = "".join(("\t" + p if "\t" in p else p) + "\n" for p in sent)

        def feed():
            try:
                self.child.stdin.write(lines)
                self.child.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the reading side sees the child's end

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        waiting: Dict[str, int] = {}
        for p in sent:
            waiting[p] = waiting.get(p, 0) + 1
        while waiting:
            line = self.child.stdout.readline()
            if not line:
                status = self.child.wait()
                raise VisionChildDied(f"vision exited with status {status} with {sum(waiting.values())} "
                                      f"input(s) of the batch unanswered")
            line = line.rstrip("\n")
            record = json.loads(line)
            path = record.get(INPUT)
            if path not in waiting:
                raise ValueError(f"vision answered for an input it was not given: {line[:200]}")
            if record.get("done"):
                waiting[path] -= 1
                if waiting[path] == 0:
                    del waiting[path]
                continue
            inputs.append(path)
            records.append(line)
        writer.join()
        return {INPUT: inputs, "record": records}


def to_columns(batch: Dict[str, np.ndarray]) -> pa.Table:
    """Rows `{"input", "record"}` as Parquet's columns: input, the record's fields, result (JSON text), error."""
    parsed = [json.loads(r) for r in batch["record"]]
    columns = {INPUT: pa.array([str(i) for i in batch[INPUT]], pa.string())}
    for field in PARQUET_FIELDS:
        kind = pa.string() if field == "file" else pa.int64()
        columns[field] = pa.array([r.get(field) for r in parsed], kind)
    columns["result"] = pa.array([json.dumps(r["result"], separators=(",", ":"), sort_keys=True)
                                  if "result" in r else None for r in parsed], pa.string())
    columns["error"] = pa.array([r.get("error") for r in parsed], pa.string())
    return pa.table(columns)


class RecordLinesDatasink(BlockBasedFileDatasink):
    """Ray Data's file writer for JSON lines that are `vision`'s own: each row's record, as printed."""

    def __init__(self, path: str, **kwargs):
        super().__init__(path, file_format="jsonl", **kwargs)

    def write_block_to_file(self, block: BlockAccessor, file: "pa.NativeFile"):
        for row in block.iter_rows(public_row_format=False):
            file.write((row["record"] + "\n").encode("utf-8"))


IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg"}
VIDEO_EXTENSIONS = {".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm", ".ts", ".mts", ".m2ts", ".mpg", ".mpeg",
                    ".wmv", ".flv", ".3gp", ".ogv"}


def expand(inputs: Iterable[str]) -> List[str]:
    """The inputs as absolute paths, each once: a file as given; a folder's images and videos (by extension,
    sorted, subfolders too, hidden files left out), each an input of its own so that they spread over the
    actors."""
    seen, out = set(), []

    def add(p):
        if p not in seen:
            seen.add(p)
            out.append(p)

    for given in inputs:
        p = os.path.abspath(os.fspath(given))
        if not os.path.isdir(p):
            add(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                ext = os.path.splitext(name)[1].lower()
                if not name.startswith(".") and (ext in IMAGE_EXTENSIONS or ext in VIDEO_EXTENSIONS):
                    add(os.path.join(root, name))
    return out


def machine_defaults(threads: int) -> Dict[str, int]:
    """Ray's CPUs and the number of actors for this machine when `run` starts Ray itself.

    One actor per `threads` cores. Ray Data's read and write tasks also take a CPU each: with exactly as
    many Ray CPUs as cores, the actors hold them all and the read never runs (on 2 cores, two 1-CPU actors
    deadlock), so Ray is told of twice the cores. The actors still run only cores/threads inferences at once.
    """
    cores = os.cpu_count() or 1
    return {"num_cpus": max(2, 2 * cores), "actors": max(1, cores // max(1, threads))}


def run(task: str, inputs: Iterable[str], output: str, *, format: str = "json", actors: Optional[int] = None,
        threads: int = 1, jobs: int = 1, batch_size: int = 4, vision: str = "vision", args: Sequence[str] = (),
        checkpoint: Optional[str] = None, resume: bool = True) -> str:
    """Runs `vision TASK` over `inputs` (images, video files, folders of them) and writes the records to
    `output` (a folder) through Ray Data's writers: JSON lines (`format="json"`) or Parquet.

    `actors` (default: one per `threads` cores of this machine, or of the cluster's CPUs) each hold a
    `vision` child with `--threads threads` (or `--jobs jobs`); `args` are more options of the task
    (e.g. `["--num-hands", "2"]`). `vision` is the executable's path (every node needs it, ffmpeg,
    libopenblas and the models). With `resume` (the default), Ray Data's checkpoint at `checkpoint`
    (default: `output` + ".checkpoint") records the inputs written; a job stopped part way and run again
    processes only the rest. Starts a local Ray if none is running. Returns `output`.
    """
    if format not in ("json", "parquet"):
        raise ValueError(f"format is json or parquet, got {format!r}")
    paths = expand(inputs)
    if not paths:
        raise ValueError("no inputs")
    output = os.path.abspath(output)
    checkpoint = os.path.abspath(checkpoint or output.rstrip("/") + ".checkpoint")
    defaults = machine_defaults(threads)
    if not ray.is_initialized():
        # The actors import this module: Ray ships it to them (on a cluster, ray.init or `ray job submit`
        # does, with py_modules or --working-dir; see README.md).
        ray.init(num_cpus=defaults["num_cpus"], include_dashboard=False,
                 runtime_env={"py_modules": [sys.modules[__name__]]})
        actors = actors or defaults["actors"]
    else:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        actors = actors or max(1, cpus // max(1, threads) - 1)

    # The checkpoint filters the rows of a Ray Data read, so the inputs are a file Ray reads.
    listing = checkpoint + "." + INPUTS_FILE
    os.makedirs(os.path.dirname(listing), exist_ok=True)
    with open(listing, "w") as f:
        for p in paths:
            f.write(json.dumps({INPUT: p}) + "\n")

    context = ray.data.DataContext.get_current()
    context.checkpoint_config = CheckpointConfig(id_column=INPUT, checkpoint_path=checkpoint) if resume else None
    try:
        ds = ray.data.read_json(listing, override_num_blocks=max(1, (len(paths) + batch_size - 1) // batch_size))
        ds = ds.map_batches(
            VisionWorker,
            fn_constructor_kwargs={"task": task, "vision": vision, "threads": threads, "jobs": jobs,
                                   "args": list(args)},
            batch_size=batch_size,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=actors),
            num_cpus=max(1, threads if jobs <= 1 else jobs),
        )
        if format == "parquet":
            ds = ds.map_batches(to_columns, batch_format="numpy")
            ds.write_parquet(output)
        else:
            ds.write_datasink(RecordLinesDatasink(output))
    finally:
        context.checkpoint_config = None
    if os.path.exists(listing):
        os.remove(listing)
    return output


def read_records(output: str) -> List[dict]:
    """The records a `run` wrote (JSON lines or Parquet), in no particular order."""
    rows: List[dict] = []
    for name in sorted(os.listdir(output)):
        path = os.path.join(output, name)
        if name.endswith(".jsonl"):
            with open(path) as f:
                rows += [json.loads(line) for line in f if line.strip()]
        elif name.endswith(".parquet"):
            import pyarrow.parquet as pq
            for row in pq.read_table(path).to_pylist():
                record = {INPUT: row[INPUT]}
                for field in PARQUET_FIELDS:
                    if row.get(field) is not None:
                        record[field] = row[field]
                if row.get("result") is not None:
                    record["result"] = json.loads(row["result"])
                if row.get("error") is not None:
                    record["error"] = row["error"]
                rows.append(record)
    return rows


def task_commands(vision: str = "vision") -> List[str]:
    """The task commands of `vision` (faces, palms, hands, ...), as `vision --help --json` lists them."""
    out = subprocess.run([vision, "--help", "--json"], check=True, capture_output=True, text=True).stdout
    return [c["command"] for c in json.loads(out)["commands"] if c["task"]]


def main(argv: Optional[List[str]] = None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description="Run a vision task over photos and videos on Ray Data.",
                                     epilog="Options after -- go to vision: ... -- --num-hands 2")
    parser.add_argument("task", help="a task command of vision (vision --help --json lists them)")
    parser.add_argument("inputs", nargs="+", help="images, folders of images, video files")
    parser.add_argument("--output", "-o", required=True, help="output folder")
    parser.add_argument("--format", choices=["json", "parquet"], default="json")
    parser.add_argument("--actors", type=int, help="vision processes (default: one per --threads cores)")
    parser.add_argument("--threads", type=int, default=1, help="inference threads per vision process")
    parser.add_argument("--batch-size", type=int, default=4, help="inputs per batch (the unit of retry)")
    parser.add_argument("--vision", default=shutil.which("vision") or "vision", help="the vision executable")
    parser.add_argument("--address", help="a running Ray cluster (default: start one here)")
    parser.add_argument("--no-resume", action="store_true", help="ignore and keep no checkpoint")
    argv = list(sys.argv[1:] if argv is None else argv)
    # Options after `--` are the task's own: ... -- --num-hands 2
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    a = parser.parse_args(argv)
    try:
        tasks = task_commands(a.vision)
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError):
        tasks = None  # no vision here to ask (its nodes may still have one): vision itself will say
    if tasks is not None and a.task not in tasks:
        parser.error(f"unknown task {a.task!r}: vision's task commands are {', '.join(tasks)}")
    if a.address:
        ray.init(address=a.address)
    run(a.task, a.inputs, a.output, format=a.format, actors=a.actors, threads=a.threads,
        batch_size=a.batch_size, vision=os.path.abspath(a.vision) if os.path.exists(a.vision) else a.vision,
        args=extra, resume=not a.no_resume)
    print(f"tasksvision_ray: records in {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
