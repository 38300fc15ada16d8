"""Tests of tasksvision_ray on a local Ray cluster (run by tools/ray/ci_test.sh):

1. a job over a folder of ../shared/testdata's photos and two video files gives the records of the sequential run
   (`vision TASK --stdin --json`), byte for byte, every input once;
2. a `vision` child killed mid-job, then a Ray actor: each is restarted, its batch retried, every input
   appears once;
3. a job stopped part way (Ctrl-C in its driver) and run again processes only the rest, and the output
   has every input once.

    python tools/ray/test_tasksvision_ray.py --vision .build/release/vision [--shared ../shared] [--task hands]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from typing import Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tasksvision_ray  # noqa: E402


def make_videos(shared: str, work: str) -> List[str]:
    """Two lossless clips from testdata/sequences (20 frames each, at the sequences' rates)."""
    clips = []
    for name, rate in (("pose_dance_1", 30), ("hand_asl_1", 25)):
        clip = os.path.join(work, f"{name}.mkv")
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-framerate", str(rate),
                        "-i", os.path.join(shared, "testdata", "sequences", name, "%04d.png"),
                        "-frames:v", "20", "-c:v", "ffv1", clip], check=True)
        clips.append(clip)
    return clips


def by_input(lines: List[str]) -> Dict[str, List[str]]:
    """Records grouped by input, in the order they came."""
    groups: Dict[str, List[str]] = OrderedDict()
    for line in lines:
        groups.setdefault(json.loads(line)["input"], []).append(line)
    return groups


def sequential(vision: str, task: str, inputs: List[str]) -> Dict[str, List[str]]:
    """The records of one `vision --stdin` over all inputs, done records left out."""
    out = subprocess.run([vision, task, "--stdin", "--json"], input="".join(p + "\n" for p in inputs),
                         capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if '"done":true' not in l]
    return by_input(lines)


def output_lines(folder: str, names=None) -> List[str]:
    """The lines of the output's files (or of `names` among them), file by file."""
    lines: List[str] = []
    for name in sorted(names if names is not None else os.listdir(folder)):
        if name.endswith(".jsonl"):
            with open(os.path.join(folder, name)) as f:
                lines += [l.rstrip("\n") for l in f if l.strip()]
    return lines


def check_equal(got: Dict[str, List[str]], expected: Dict[str, List[str]], what: str) -> None:
    """Every input once, with exactly the sequential run's records (an input written twice has them twice)."""
    missing = set(expected) - set(got)
    extra = set(got) - set(expected)
    assert not missing and not extra, f"{what}: missing {sorted(missing)[:3]}, unexpected {sorted(extra)[:3]}"
    for path, lines in expected.items():
        assert got[path] == lines, f"{what}: {path}: {len(got[path])} records, expected {len(lines)} " \
                                   f"(or different bytes)"


def test_equal_to_sequential(args, inputs, expected, work) -> None:
    out = os.path.join(work, "equal")
    tasksvision_ray.run(args.task, [os.path.dirname(inputs[0])], out, vision=args.vision, batch_size=3,
                        resume=False)
    check_equal(by_input(output_lines(out)), expected, "equal")
    # Parquet holds the same records.
    pq_out = os.path.join(work, "equal-parquet")
    tasksvision_ray.run(args.task, inputs, pq_out, vision=args.vision, batch_size=8, format="parquet", resume=False)
    rows = tasksvision_ray.read_records(pq_out)
    want = [json.loads(l) for ls in expected.values() for l in ls]
    key = lambda r: (r["input"], r.get("frame", -1), r.get("file", ""))  # noqa: E731
    assert sorted(rows, key=key) == sorted(want, key=key), "parquet rows differ from the sequential records"
    records = sum(map(len, expected.values()))
    print(f"ok: a job over a folder of {len(inputs)} photos and videos equals the sequential run ({records} "
          f"records; JSON lines byte for byte, Parquet by value)")


def parent_of(pid: int) -> int:
    """A process's parent, from /proc (0 if it has gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def test_killed_workers(args, inputs, expected, work) -> None:
    """A `vision` child killed once the job has written a file, then a Ray actor (a child's parent) once it has
    written five: each is restarted, its batch retried, and every input is written once."""
    out = os.path.join(work, "killed")
    pids = os.environ[tasksvision_ray.PID_LOG_ENV]
    killed: Dict[str, int] = {}
    earlier = len(open(pids).read().split()) if os.path.exists(pids) else 0

    def newest_child() -> int:
        for pid in reversed([int(p) for p in open(pids).read().split()[earlier:]]):
            if parent_of(pid) > 1:
                return pid
        return 0

    def killer():
        deadline = time.time() + 600
        while time.time() < deadline and len(killed) < 2:
            written = sum(n.endswith(".jsonl") for n in os.listdir(out)) if os.path.isdir(out) else 0
            child = newest_child() if os.path.exists(pids) else 0
            if child and written >= 1 and "child" not in killed:
                os.kill(child, signal.SIGKILL)
                killed["child"] = child
            elif child and written >= 5 and "actor" not in killed:
                actor = parent_of(child)
                os.kill(actor, signal.SIGKILL)
                killed["actor"] = actor
            time.sleep(0.2)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    tasksvision_ray.run(args.task, inputs, out, vision=args.vision, batch_size=2, resume=False)
    thread.join(timeout=1)
    assert len(killed) == 2, f"the job ended before a child and an actor could be killed (killed: {killed})"
    started = len(open(pids).read().split()) - earlier
    check_equal(by_input(output_lines(out)), expected, "killed")
    print(f"ok: vision child {killed['child']} and Ray actor {killed['actor']} killed mid-job; {started} children "
          f"started in all; every input once")


def test_resume(args, inputs, expected, work) -> None:
    out = os.path.join(work, "resumed")
    listing = os.path.join(work, "resume-inputs.json")
    with open(listing, "w") as f:
        json.dump(inputs, f)
    # The first run, in a driver of its own, is stopped with Ctrl-C once it has written a few files.
    driver = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--driver", listing, "--output", out,
                               "--vision", args.vision, "--task", args.task])
    deadline = time.time() + 600
    while time.time() < deadline and driver.poll() is None:
        if os.path.isdir(out) and sum(n.endswith(".jsonl") for n in os.listdir(out)) >= 3:
            break
        time.sleep(0.1)
    assert driver.poll() is None, "the first run ended before it could be stopped"
    driver.send_signal(signal.SIGINT)
    try:
        driver.wait(timeout=120)
    except subprocess.TimeoutExpired:
        driver.kill()
        driver.wait()
    before = set(n for n in os.listdir(out) if n.endswith(".jsonl"))
    first = by_input(output_lines(out, before))
    assert 0 < len(first) < len(inputs), f"the first run wrote {len(first)} of {len(inputs)} inputs"

    tasksvision_ray.run(args.task, inputs, out, vision=args.vision, batch_size=2)
    after = set(n for n in os.listdir(out) if n.endswith(".jsonl"))
    kept = by_input(output_lines(out, before & after))
    new = by_input(output_lines(out, after - before))
    assert not set(kept) & set(new), f"inputs written twice: {sorted(set(kept) & set(new))[:3]}"
    assert len(new) < len(inputs), "the second run processed every input again"
    check_equal(by_input(output_lines(out)), expected, "resumed")
    print(f"ok: stopped after {len(first)} of {len(inputs)} inputs ({len(kept)} committed); the second run "
          f"processed the other {len(new)}; every input once")


def test_rerun_finished(args, inputs, expected, work) -> None:
    """A finished job run again into its output writes nothing (Ray deleted its checkpoint on success); without
    resume the non-empty output is refused."""
    out = os.path.join(work, "resumed")
    before = sorted(output_lines(out))
    tasksvision_ray.run(args.task, inputs, out, vision=args.vision, batch_size=2)
    after = sorted(output_lines(out))
    assert after == before, f"the second run of a finished job wrote {len(after) - len(before)} more rows"
    try:
        tasksvision_ray.run(args.task, inputs, out, vision=args.vision, batch_size=2, resume=False)
        raise AssertionError("a run without resume into a non-empty output was not refused")
    except ValueError as e:
        assert "already holds" in str(e), e
    check_equal(by_input(output_lines(out)), expected, "re-run")
    print(f"ok: a finished job run again wrote no row ({len(after)} rows); without resume it is refused")


def driver_main(args) -> None:
    """The first run of test_resume, stopped from outside."""
    with open(args.driver) as f:
        inputs = json.load(f)
    try:
        tasksvision_ray.run(args.task, inputs, args.output, vision=args.vision, batch_size=2)
    except KeyboardInterrupt:
        sys.exit(130)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vision", required=True)
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
    parser.add_argument("--task", default="hands")
    parser.add_argument("--driver", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.vision = os.path.abspath(args.vision)
    if args.driver:
        return driver_main(args)
    import ray
    ray.data.DataContext.get_current().enable_progress_bars = False
    start = time.time()
    work = tempfile.mkdtemp(prefix="tasksvision-ray-test-")
    os.environ[tasksvision_ray.PID_LOG_ENV] = os.path.join(work, "children.txt")
    images = os.path.join(os.path.abspath(args.shared), "testdata", "images")
    # A folder of photos and videos: the testdata photos (linked) and two clips, with a file of another kind.
    folder = os.path.join(work, "media")
    os.makedirs(folder)
    for name in sorted(os.listdir(images)):
        os.symlink(os.path.join(images, name), os.path.join(folder, name))
    make_videos(os.path.abspath(args.shared), folder)
    inputs = tasksvision_ray.expand([folder])
    assert not any(p.endswith(".tsv") for p in inputs) and sum(p.endswith(".mkv") for p in inputs) == 2
    expected = sequential(args.vision, args.task, inputs)
    assert len(expected) == len(inputs), "the sequential run missed inputs"
    test_equal_to_sequential(args, inputs, expected, work)
    test_killed_workers(args, inputs, expected, work)
    ray.shutdown()
    test_resume(args, inputs, expected, work)
    test_rerun_finished(args, inputs, expected, work)
    ray.shutdown()
    print(f"tasksvision_ray tests: ok in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
