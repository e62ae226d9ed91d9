"""The loader against the real kubectl: it never reads less than kubectl does.

``kubectl label --local -f FILE`` splits and decodes a file with
apimachinery's reader, as ``kubectl apply`` does, and prints every object it
read without asking a cluster. Each stream of docs/yaml.md's table, and
streams built to fool the kind sniff, are read by both. Where kubectl reads
the whole stream, egress-lint reads the same documents in the same order;
where kubectl stops with an error, egress-lint reads every document kubectl
read before it, and reports a problem or reads more. A problem where kubectl
reads on is only the one docs/yaml.md names. The test skips when
kubectl is not on the PATH (`.ci/run` installs it).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lint.loading import LoadedDocument, load
from lint.loading.files import SourceFile
from lint.loading.loader import PAST_FIRST_DOCUMENT, load_file
from lint.loading.split import STRAY_CONTENT
from tests.loading.helpers import write
from tests.loading.test_kube_cuts import KINDS, table
from tests.loading.test_sniff_safety import streams

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on the PATH")
_EACH_OBJECT = 'jsonpath={.kind}{"\\t"}{.metadata.name}{"\\n"}'


def kubectl_reads(path: Path) -> tuple[list[tuple[str, str]], bool]:
    """The (kind, name) of each object kubectl reads from ``path``, in order,
    and whether it read the whole file without an error."""
    assert KUBECTL is not None
    done = subprocess.run(
        [KUBECTL, "label", "--local", "-f", str(path), "x=y", "-o", _EACH_OBJECT],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin", "KUBECONFIG": "/dev/null", "HOME": str(path.parent)},
    )
    objects = [line.partition("\t") for line in done.stdout.splitlines() if line]
    return [(kind, name) for kind, _, name in objects], done.returncode == 0


def is_subsequence(short: list[str], long: list[str]) -> bool:
    remaining = iter(long)
    return all(item in remaining for item in short)


@pytest.mark.parametrize(("stream", "documents"), table())
def test_the_table_reads_what_kubectl_reads(stream: str, documents: str, tmp_path: Path) -> None:
    text = stream.encode("ascii").decode("unicode_escape")
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    theirs, whole = kubectl_reads(path)
    harvest = load_file(SourceFile("m.yaml", text.encode("utf-8")), KINDS)
    ours = [str(document.kind) for document in harvest.documents]
    their_kinds = [kind for kind, _ in theirs]
    if whole:
        assert ours == their_kinds
        # The problems where kubectl reads on: text that go-yaml ignores
        # (after '...', or past the first document), which egress-lint
        # reports (docs/yaml.md).
        for problem in harvest.problems:
            assert problem.message == STRAY_CONTENT or problem.message.endswith(PAST_FIRST_DOCUMENT)
    else:
        assert is_subsequence(their_kinds, ours)
        assert harvest.problems or len(ours) > len(their_kinds)


RELEVANT = frozenset({"NetworkPolicy", "CiliumNetworkPolicy", "Namespace"})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(stream=streams())
# Found against kubectl 1.33: go-yaml reads the indented Namespace and
# ignores the column-0 line after it; libyaml refuses the whole document.
@pytest.mark.slow
@example(stream="---\n  kind: Namespace\n  metadata: {name: np-1}\nkind: ConfigMap\n")
def test_every_policy_kubectl_reads_is_read_or_fails_closed(stream: str, tree: Path) -> None:
    write(tree, "s.yaml", stream)
    theirs, _ = kubectl_reads(tree / "s.yaml")
    result = load(["s.yaml"])
    ours = {
        (str(document.value.get("kind")), str((document.value.get("metadata") or {}).get("name")))
        for document in result.documents
        if isinstance(document.value, dict)
    }
    fails_closed = any(problem.suspect_kind for problem in result.problems)
    missed = [item for item in theirs if item[0] in RELEVANT and item not in ours]
    assert not missed or fails_closed, missed


# Pieces of streams that readers tend to part on: separators with Go
# whitespace, '...', BOMs, lone CRs, tabs, JSON values, indented and tagged
# kinds, lists and block scalars holding a separator.
PIECES = [
    *("---", "--- ", "---\u00a0", "---\f", "---\t#x", "---#", "...", "\ufeff", "\r", "\t", "#c"),
    *("kind: NetworkPolicy", "kind: Namespace", "metadata: {name: a}", "metadata: {name: b}"),
    *("  kind: NetworkPolicy", "  metadata: {name: c}", "kind: !x NetworkPolicy"),
    '{"kind":"NetworkPolicy","metadata":{"name":"j"}}',
    '{"kind":"Namespace","metadata":{"name":"k"}}',
    "{kind: NetworkPolicy, metadata: {name: f}}",
    *("kind: List", "items:", "- kind: NetworkPolicy", "  metadata: {name: i}"),
    *('kind: "Network\\u0050olicy"', "x: |", "  ---", "%YAML 1.1", "- a", ""),
]
pieced = st.lists(
    st.tuples(st.sampled_from(PIECES), st.sampled_from(["\n", "\r\n", " ", ""])), max_size=14
).map(lambda parts: "".join(piece + end for piece, end in parts))


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(stream=pieced)
# Found against kubectl 1.33: Go's JSON decoder skips the tab, libyaml
# refuses it.
@pytest.mark.slow
@example(stream='\t\n{"kind":"Namespace","metadata":{"name":"k"}}\n')
def test_pieced_streams_read_what_kubectl_reads(stream: str, tree: Path) -> None:
    (tree / "s.yaml").write_text(stream, encoding="utf-8", newline="")
    theirs, _ = kubectl_reads(tree / "s.yaml")
    result = load(["s.yaml"])
    ours = {(kind, name or "") for kind, name in map(_identity, result.documents)}
    policies_fail_closed = any(problem.suspect_kind for problem in result.problems)
    for kind, name in theirs:
        if kind == "Namespace" or (kind in RELEVANT and not policies_fail_closed):
            assert (kind, name) in ours, (kind, name)


def _identity(document: LoadedDocument) -> tuple[str, str | None]:
    value = document.value if isinstance(document.value, dict) else {}
    metadata = value.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return str(value.get("kind")), None if name is None else str(name)
