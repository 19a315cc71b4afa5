"""The CI snippets of docs/ci.md, checked as far as this machine allows:
every YAML block parses; the GitHub workflow uploads the SARIF file its
layoutc step writes; the pre-commit config names hooks that
.pre-commit-hooks.yaml defines; every `layoutc` command of the workflow and
the GitLab job runs on a scratch repository (the examples and a TTGIR dump)
with the exit code the snippet expects.

    python check_docs.py REPO_ROOT LAYOUTC_DIR
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

root, bindir = sys.argv[1], sys.argv[2]
text = open(os.path.join(root, "docs/ci.md"), encoding="utf-8").read()
blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, re.S)]
hooks = {h["id"] for h in yaml.safe_load(open(os.path.join(root, ".pre-commit-hooks.yaml")))}

workflow = next(b for b in blocks if isinstance(b, dict) and "jobs" in b)
precommit = next(b for b in blocks if isinstance(b, dict) and "repos" in b)
gitlab = next(b for b in blocks if isinstance(b, dict) and "layoutc" in b)

failures = []


def fail(msg):
    failures.append(msg)
    print("check-docs: " + msg, file=sys.stderr)


# YAML 1.1 reads the key `on` as true.
if not (workflow.get("on") or workflow.get(True)):
    fail("the workflow has no `on` trigger")
if workflow.get("permissions", {}).get("security-events") != "write":
    fail("upload-sarif needs `security-events: write`")
steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
uploads = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
if len(uploads) != 1:
    fail("the workflow does not upload SARIF with github/codeql-action/upload-sarif")
sarif_file = uploads[0]["with"]["sarif_file"] if uploads else None

for repo in precommit["repos"]:
    for hook in repo["hooks"]:
        if hook["id"] not in hooks:
            fail(f"pre-commit hook {hook['id']} is not in .pre-commit-hooks.yaml")

scratch = tempfile.mkdtemp()
try:
    for name in os.listdir(os.path.join(root, "examples")):
        if name.endswith(".lay"):
            shutil.copy(os.path.join(root, "examples", name), scratch)
    shutil.copy(os.path.join(root, "tests/corpus/ttgir/transpose_sm80.ttgir"), scratch)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])

    def run(line, allowed):
        r = subprocess.run(["bash", "-c", line], cwd=scratch, env=env, capture_output=True, text=True)
        if r.returncode not in allowed:
            fail(f"`{line}` exited {r.returncode}: {r.stderr[-500:]}")
        return r

    ran = 0
    for s in steps:
        for line in s.get("run", "").splitlines():
            if line.strip().startswith("layoutc"):
                run(line, {0, 1} if s.get("continue-on-error") else {0})
                ran += 1
    for line in gitlab["layoutc"]["script"]:
        if line.strip().startswith("layoutc"):
            run(line, {0})
            ran += 1
    if sarif_file:
        log = json.load(open(os.path.join(scratch, sarif_file)))
        results = log["runs"][0]["results"]
        if log.get("version") != "2.1.0" or not results:
            fail(f"{sarif_file} is not SARIF 2.1.0 with the dump's warnings")
    print(f"check-docs: {len(blocks)} YAML blocks parse, {ran} layoutc commands ran")
finally:
    shutil.rmtree(scratch)

sys.exit(1 if failures else 0)
