"""The Argo CD sidecar image, without docker: the build context that the
top-level .dockerignore leaves (read with a small matcher that follows
Docker's rules) holds what builds the wheel and nothing of .git, the tests
or a virtual environment; the Dockerfile is multi-stage, pins and checks
helm and kustomize, and runs as a user that is not root."""

from __future__ import annotations

import re
import subprocess
import tomllib
from functools import cache

import pytest

from tests.integrations.support import DOCS, REPO, code_blocks

DOCKERFILE = DOCS / "argocd" / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"

Rule = tuple[bool, re.Pattern[str]]
"""One line of .dockerignore: whether it takes paths back in (`!`), and its
pattern."""


def _pattern(glob: str) -> re.Pattern[str]:
    """A .dockerignore pattern as a regular expression over a path with `/`
    separators: `*` and `?` stay within one path element, `**` spans any
    number of them (none included), `[...]` is a class."""
    out, index = [], 0
    while index < len(glob):
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index):
            out.append(".*")
            index += 2
        elif glob[index] == "*":
            out.append("[^/]*")
            index += 1
        elif glob[index] == "?":
            out.append("[^/]")
            index += 1
        elif glob[index] == "[":
            end = glob.index("]", index)
            out.append(glob[index : end + 1])
            index = end + 1
        else:
            out.append(re.escape(glob[index]))
            index += 1
    return re.compile("".join(out) + r"\Z")


def parse_dockerignore(text: str) -> list[Rule]:
    """The rules, in order: comments and blank lines dropped, a leading `/`
    and a trailing `/` removed, as Docker cleans each pattern."""
    rules: list[Rule] = []
    for written in text.splitlines():
        line = written.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        glob = line.removeprefix("!").strip().strip("/")
        rules.append((negated, _pattern(glob)))
    return rules


def excluded(path: str, rules: list[Rule]) -> bool:
    """Whether Docker leaves the path out of the context: the last rule
    that matches the path, or one of the directories above it, decides."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    verdict = False
    for negated, pattern in rules:
        if any(pattern.match(prefix) for prefix in prefixes):
            verdict = not negated
    return verdict


@cache
def _rules() -> list[Rule]:
    return parse_dockerignore(DOCKERIGNORE.read_text(encoding="utf-8"))


def test_the_matcher_follows_dockers_rules() -> None:
    rules = parse_dockerignore("*\n!lint/\n**/__pycache__\n# note\n/docs/*.md\n!docs/keep.md\n")
    assert excluded("tests/test_x.py", rules)
    assert excluded(".git/HEAD", rules)
    assert not excluded("lint/cli/check.py", rules)  # its directory is taken back
    assert excluded("lint/cli/__pycache__/check.cpython-311.pyc", rules)
    assert excluded("docs/a.md", rules)
    assert not excluded("docs/keep.md", rules)
    assert not excluded("x", parse_dockerignore("a/*\n"))
    assert excluded("a/b/c", parse_dockerignore("a/*\n"))
    assert excluded("a/b", parse_dockerignore("a/?\n"))
    assert not excluded("a/bc", parse_dockerignore("a/?\n"))


def _tracked() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return listed


# What a checkout may hold besides its tracked files.
LEFT_BEHIND = [
    ".git/HEAD",
    ".git/objects/pack/pack-1.pack",
    ".venv-ci/bin/python",
    ".venv-ci/lib/python3.11/site-packages/click/core.py",
    ".venv/pyvenv.cfg",
    "venv/bin/activate",
    "lint/__pycache__/kinds.cpython-311.pyc",
    "lint/cli/__pycache__/check.cpython-311.pyc",
    ".pytest_cache/v/cache/nodeids",
    ".mypy_cache/3.11/lint/kinds.meta.json",
    "dist/egress_lint-0.1.0-py3-none-any.whl",
    "bench/out/tree/a.yaml",
]


@pytest.mark.parametrize(
    "path",
    [
        ".git/HEAD",
        ".git/config",
        ".venv-ci/bin/python",
        ".venv/pyvenv.cfg",
        "venv/bin/activate",
        "tests/test_kinds.py",
        "tests/golden/digests.json",
        "lint/__pycache__/kinds.cpython-311.pyc",
        ".ci/run",
        "fixtures/demo/.egress-lint.yaml",
    ],
)
def test_the_context_leaves_out(path: str) -> None:
    assert excluded(path, _rules())


def test_the_context_holds_only_what_builds_the_wheel() -> None:
    tracked = _tracked()
    kept = sorted(p for p in [*tracked, *LEFT_BEHIND] if not excluded(p, _rules()))
    assert not [p for p in kept if p.startswith((".git/", "tests/", ".venv", "venv/"))]
    assert not [p for p in kept if "__pycache__" in p]
    # Everything of the package and its templates, and the files the build
    # metadata names, are in.
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = {"pyproject.toml", project["readme"], *project["license-files"]}
    needed |= {p for p in tracked if p.startswith(("lint/", "templates/"))}
    assert needed <= set(kept)
    assert set(kept) == needed


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined)."""
    joined = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    lines = [line.strip() for line in joined.splitlines()]
    return [
        (line.split(maxsplit=1)[0].upper(), line.split(maxsplit=1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def test_the_image_is_built_in_stages_and_runs_as_a_user_that_is_not_root() -> None:
    instructions = _instructions()
    stages = [args for op, args in instructions if op == "FROM"]
    assert len(stages) >= 3
    assert [args for op, args in instructions if op == "COPY" and args.startswith(". ")]
    # The last stage takes the tools and the installed package from earlier ones.
    last = len(instructions) - [op for op, _ in instructions][::-1].index("FROM") - 1
    final = instructions[last:]
    assert any(op == "COPY" and args.startswith("--from=tools") for op, args in final)
    assert not any(op == "COPY" and args.startswith(". ") for op, args in final)
    (user,) = [args for op, args in final if op == "USER"]
    assert user.split(":")[0] not in ("0", "root")
    assert instructions[-1][0] == "USER"


def test_helm_and_kustomize_are_pinned_and_checked() -> None:
    args = dict(arg.split("=", 1) for op, arg in _instructions() if op == "ARG" and "=" in arg)
    for tool in ("HELM", "KUSTOMIZE"):
        assert re.fullmatch(r"\d+\.\d+\.\d+", args[f"{tool}_VERSION"])
        for arch in ("AMD64", "ARM64"):
            assert re.fullmatch(r"[0-9a-f]{64}", args[f"{tool}_SHA256_{arch}"])
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert text.count("sha256sum -c -") == 2
    assert "latest" not in text


def test_the_documented_build_uses_the_repository_root_as_context() -> None:
    readme = "\n".join(code_blocks(DOCS / "argocd" / "README.md", "sh"))
    builds = re.findall(r"docker build .*", re.sub(r"\\\n\s*", "", readme))
    assert len(builds) == 2  # the plain build, and one with other tool versions
    for build in builds:
        assert "-f docs/argocd/Dockerfile" in build
        assert build.endswith(" .")
