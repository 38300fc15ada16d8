#!/usr/bin/env python3
"""Turns a libFuzzer finding into a regression input under Tests/Fixtures/fuzz/<target>/.

    python3 tools/fuzz_regression.py TARGET FINDING [NAME]

Inputs mutated from a model in Models/ are stored as a patch against that model (its name,
sha256, the input's length and the changed bytes), so no model bytes enter the repository;
FuzzRegressionTests rebuilds them. Anything else is stored as is when it is small (64 KB).
"""
import hashlib, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_patch(data):
    best = None
    models = os.path.join(ROOT, "Models")
    for name in sorted(os.listdir(models)):
        if not name.endswith((".tflite", ".task")):
            continue
        base = open(os.path.join(models, name), "rb").read()
        if abs(len(base) - len(data)) > 4096:
            continue
        edits = [[i, data[i]] for i in range(len(data)) if i >= len(base) or base[i] != data[i]]
        if len(edits) <= 256 and (best is None or len(edits) < len(best[2])):
            best = (name, base, edits)
    return best


def main():
    target, finding = sys.argv[1], sys.argv[2]
    data = open(finding, "rb").read()
    name = sys.argv[3] if len(sys.argv) > 3 else os.path.basename(finding)
    out_dir = os.path.join(ROOT, "Tests", "Fixtures", "fuzz", target)
    os.makedirs(out_dir, exist_ok=True)
    patch = best_patch(data)
    if patch:
        base_name, base, edits = patch
        doc = {"base": base_name, "baseSha256": hashlib.sha256(base).hexdigest(), "length": len(data), "edits": edits}
        path = os.path.join(out_dir, name + ".patch.json")
        with open(path, "w") as f:
            json.dump(doc, f)
            f.write("\n")
    elif len(data) <= 65536:
        path = os.path.join(out_dir, name + ".bin")
        open(path, "wb").write(data)
    else:
        sys.exit(f"{finding}: {len(data)} bytes and not a patch of a model in Models/; "
                 f"minimize it first (-minimize_crash=1)")
    print(path)


if __name__ == "__main__":
    main()
