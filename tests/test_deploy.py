"""The Docker Space, checked without a Docker engine: what the Dockerfile installs, copies,
runs and exposes, the README front matter, and that .dockerignore keeps every file the app
needs in the build context. The Gradio Space's requirements are checked the same way."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PORT = "8501"


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text()
    lines, current = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        instruction, _, rest = current.partition(" ")
        lines.append((instruction.upper(), rest.strip()))
        current = ""
    return lines


def pins(file: str) -> dict[str, str]:
    found = {}
    for line in (ROOT / file).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            found[name.strip().lower()] = version.strip()
    return found


def pip_installs(runs: list[str]) -> list[list[str]]:
    """Each `pip install ...` command inside the RUN instructions, as argument lists."""
    commands = []
    for run in runs:
        for part in re.split(r"&&|;", run):
            words = shlex.split(part)
            if "pip" in words and "install" in words:
                commands.append(words[words.index("install") + 1:])
    return commands


def front_matter(text: str) -> dict[str, str]:
    match = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    assert match, "README.md starts with a --- front matter block"
    pairs = (line.split(":", 1) for line in match.group(1).splitlines() if ":" in line)
    return {k.strip(): v.strip() for k, v in pairs}


# --- requirements -----------------------------------------------------------------------------
@pytest.mark.parametrize("file", ["requirements.txt", "requirements-data.txt", "requirements-test.txt",
                                  "requirements-gradio.txt"])
def test_every_requirement_is_pinned_exactly(file):
    if not (ROOT / file).exists():
        pytest.fail(f"{file} is missing")
    for line in (ROOT / file).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith(("-r ", "--extra-index-url ")):
            assert re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[0-9][0-9A-Za-z.+\-]*", line), \
                f"{file}: {line!r} is not an exact pin"


def test_the_dockerfile_installs_both_requirement_files_and_cpu_torch_at_the_same_pin():
    steps = dockerfile()
    installs = pip_installs([args for op, args in steps if op == "RUN"])
    assert any("-r" in c and "requirements.txt" in c and "--no-deps" not in c for c in installs), installs
    assert any("-r" in c and "requirements-data.txt" in c and "--no-deps" in c for c in installs), installs
    torch_pin = pins("requirements.txt")["torch"]
    torch_installs = [c for c in installs if any(w.startswith("torch") for w in c)]
    assert torch_installs, "CPU torch is installed explicitly"
    for command in torch_installs:
        assert f"torch=={torch_pin}" in command, f"Dockerfile torch pin differs from requirements.txt ({torch_pin})"
        assert "https://download.pytorch.org/whl/cpu" in command, "torch comes from the CPU index"
    first_torch = installs.index(torch_installs[0])
    first_reqs = next(i for i, c in enumerate(installs) if "requirements.txt" in c)
    assert first_torch <= first_reqs, "CPU torch is installed before requirements.txt could pull a CUDA build"
    copies = [args for op, args in steps if op == "COPY"]
    copied_first = steps.index(next(s for s in steps if s[0] == "COPY"))
    assert "requirements.txt" in copies[0] and "requirements-data.txt" in copies[0]
    assert copied_first < steps.index(next(s for s in steps if s[0] == "RUN" and "requirements.txt" in s[1]))


def test_the_image_runs_as_uid_1000_and_serves_streamlit_on_8501_with_a_health_check():
    steps = dockerfile()
    ops = [op for op, _ in steps]
    assert steps[0][0] == "FROM" and re.search(r"python:3\.11", steps[0][1]), "Python 3.11 base image"
    useradd = next(args for op, args in steps if op == "RUN" and "useradd" in args)
    user = shlex.split(useradd)[-1]
    assert re.search(r"(--uid|-u)\s+1000\b", useradd), useradd
    users = [args for op, args in steps if op == "USER"]
    assert users and users[-1] in (user, "1000"), "the last USER is the uid-1000 user"
    last_user = max(i for i, op in enumerate(ops) if op == "USER")
    assert ops.index("CMD") > last_user, "the app starts as the uid-1000 user"
    assert all(f"--chown={user}" in args for op, args in steps if op == "COPY"), "copied files belong to the user"
    assert any(op == "EXPOSE" and PORT in args.split() for op, args in steps)
    cmd = next(args for op, args in steps if op == "CMD")
    words = " ".join(json.loads(cmd)) if cmd.startswith("[") else cmd
    assert re.search(r"streamlit run app\.py", words)
    assert f"--server.port={PORT}" in words or f"--server.port {PORT}" in words
    assert "--server.address=0.0.0.0" in words or "--server.address 0.0.0.0" in words
    health = next(args for op, args in steps if op == "HEALTHCHECK")
    assert f"127.0.0.1:{PORT}/_stcore/health" in health or f"localhost:{PORT}/_stcore/health" in health


def test_readme_front_matter_is_a_docker_space_on_8501():
    matter = front_matter((ROOT / "README.md").read_text())
    assert matter.get("sdk") == "docker"
    assert matter.get("app_port") == PORT
    assert matter.get("title")


def test_readme_documents_the_gradio_space():
    assert "docs/gradio.md" in (ROOT / "README.md").read_text()
    text = (ROOT / "docs" / "gradio.md").read_text()
    assert "sdk: gradio" in text and "app_file: gradio_app.py" in text
    assert "requirements-gradio.txt" in text


def test_the_gradio_space_gets_the_same_versions_and_cpu_torch():
    app, space, test = pins("requirements.txt"), pins("requirements-gradio.txt"), pins("requirements-test.txt")
    assert space["torch"].split("+")[0] == app["torch"] and space["torch"].endswith("+cpu")
    assert "download.pytorch.org/whl/cpu" in (ROOT / "requirements-gradio.txt").read_text()
    for name, version in space.items():
        if name in app and name != "torch":
            assert version == app[name], \
                f"{name}: {version} in requirements-gradio.txt, {app[name]} in requirements.txt"
    assert space["gradio"] == test["gradio"] and space["gradio_client"] == test["gradio_client"]
    matter = (ROOT / "docs" / "gradio.md").read_text()
    assert f"sdk_version: {space['gradio']}" in matter


# --- the build context ------------------------------------------------------------------------
def dockerignore_patterns() -> list[tuple[bool, re.Pattern]]:
    """(negated, regex) per .dockerignore line, in Docker's semantics (Go filepath.Match plus **)."""
    patterns = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line.lstrip("!").strip().strip("/")
        line = re.sub(r"^\./", "", line)
        regex, i = "", 0
        while i < len(line):
            if line.startswith("**", i):
                regex += ".*"
                i += 2
                if line.startswith("/", i):
                    regex = regex[:-2] + "(?:.*/)?"
                    i += 1
            elif line[i] == "*":
                regex += "[^/]*"
                i += 1
            elif line[i] == "?":
                regex += "[^/]"
                i += 1
            else:
                regex += re.escape(line[i])
                i += 1
        patterns.append((negated, re.compile(regex + "$")))
    return patterns


def excluded(path: str, patterns) -> bool:
    """Docker: the last matching pattern wins; a pattern matching a parent folder excludes the path."""
    parts = path.split("/")
    candidates = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    verdict = False
    for negated, regex in patterns:
        if any(regex.match(c) for c in candidates):
            verdict = not negated
    return verdict


def test_the_dockerignore_matcher_follows_docker_rules():
    patterns = [(False, re.compile(r"tests$")), (False, re.compile(r"[^/]*\.pyc$")),
                (False, re.compile(r"(?:.*/)?__pycache__$"))]
    assert excluded("tests/pages/test_x.py", patterns)
    assert excluded("a.pyc", patterns) and not excluded("engine/a.pyc", patterns)
    assert excluded("engine/__pycache__/a.cpython-311.pyc", patterns)
    assert not excluded("engine/attention/mechanism.py", patterns)


def app_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "app.py", "engine", "ui", "views", "assets", ".streamlit",
                             "requirements.txt", "requirements-data.txt"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return listed


def test_every_file_the_app_needs_is_in_the_build_context():
    patterns = dockerignore_patterns()
    files = app_files()
    assert "app.py" in files and any(f.startswith("engine/") for f in files) and ".streamlit/config.toml" in files
    left_out = [f for f in files if excluded(f, patterns)]
    assert not left_out, f".dockerignore keeps these out of the image: {left_out}"


def test_the_build_context_leaves_out_tests_and_local_clutter():
    patterns = dockerignore_patterns()
    for path in (".git/config", "artifacts/screenshots/a.png", "tests/test_deploy.py", "engine/__pycache__/x.pyc"):
        assert excluded(path, patterns), path


def test_streamlit_config_keeps_usage_stats_off():
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    assert re.search(r"^\s*gatherUsageStats\s*=\s*false", config, re.MULTILINE)


def test_the_image_bakes_the_prepared_cache():
    """The Dockerfile prepares the cache (engine.machinery.prepare) as the user who runs the app, into the folder
    PLAYGROUND_CACHE names, after the code is copied: the image starts with every array mapped, not computed."""
    steps = dockerfile()
    env = " ".join(rest for instruction, rest in steps if instruction == "ENV")
    assert "PLAYGROUND_CACHE=/home/user/cache" in env
    prepare = [i for i, (instruction, rest) in enumerate(steps)
               if instruction == "RUN" and "python -m engine.machinery.prepare" in rest]
    assert prepare, "the Dockerfile does not run python -m engine.machinery.prepare"
    copy_code = max(i for i, (instruction, rest) in enumerate(steps) if instruction == "COPY")
    user = max(i for i, (instruction, rest) in enumerate(steps) if instruction == "USER")
    assert prepare[0] > copy_code and prepare[0] > user


def _readme_commands() -> list[str]:
    """The README's shell blocks' one-line commands (its set-up commands)."""
    text = (ROOT / "README.md").read_text()
    return [line for block in re.findall(r"```bash\n(.*?)```", text, re.S) for line in block.splitlines()
            if line.startswith("python3 -m venv")]


def test_the_readme_gives_two_set_up_commands_in_a_fresh_venv():
    """Exactly two, both in the first 60 lines, and a README a teacher reads in five minutes (200 lines at most)."""
    run_app, run_tests = _readme_commands()
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    assert all(any(command == line for line in lines[:60]) for command in (run_app, run_tests))
    for command in (run_app, run_tests):
        assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt")
        assert "pip install --no-deps -r requirements-data.txt" in command
    assert run_app.endswith("streamlit run app.py") and run_tests.endswith("python -m pytest")


def test_ci_runs_the_readmes_test_command_word_for_word():
    _, run_tests = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert run_tests in ci, ".ci/run must run the README's test command as a line of its own"
    assert any(line.startswith("rm -rf .venv") for line in ci[:ci.index(run_tests)]), \
        "CI starts from a fresh venv, as a new user does"
