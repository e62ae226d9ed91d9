"""Odd input never crashes the loader: it loads, or it is a DeclarationError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint.declarations import DeclarationError, Declarations, load_declarations

pytestmark = pytest.mark.slow

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", " ", "443", "a.example.com", ".example.com", "*", "10.0.0.0/8", "cilium"]),
    st.text(max_size=12),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _fields(names: list[str], values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(names), values, max_size=len(names))


NARROWING = _fields(["ports", "hostPorts", "dnsNames", "tlsServerNames", "tlsPorts"], JSON_VALUES)
POLICY = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(
            [
                "deny-all",
                "allow-all",
                "no-network",
                "public-internet",
                "static",
                "resolver",
                "other",
            ]
        )
    },
    optional={"exceptCidrs": JSON_VALUES, "allowedHosts": JSON_VALUES},
)
EGRESS = st.fixed_dictionaries(
    {"policy": POLICY},
    optional={
        "engine": st.sampled_from(["core", "cilium"]),
        "verify": st.text(max_size=20),
        "ciliumNarrowing": NARROWING | JSON_VALUES,
        "profile": JSON_VALUES,
        "profileLabelKey": JSON_VALUES,
        "perSandbox": _fields(
            ["engine", "admissionPolicyName", "admissionPolicyBindingName", "labelKey"], JSON_VALUES
        ).map(lambda d: d)
        | NARROWING.map(lambda n: {"engine": "cilium", "narrowing": n}),
    },
)


def _load(path: Path, text: str) -> Declarations | DeclarationError:
    path.write_text(text, encoding="utf-8")
    try:
        return load_declarations(path, namespace_override=None)
    except DeclarationError as error:
        return error


@SETTINGS
@given(egress=EGRESS)
def test_any_egress_contents_load_or_are_refused(tmp_path: Path, egress: dict[str, Any]) -> None:
    document = {"version": 1, "sandboxes": [{"template": "t", "egress": egress}]}
    result = _load(tmp_path / "d.yaml", json.dumps(document))
    if isinstance(result, DeclarationError):
        assert result.line >= 1
        assert result.path == "" or result.path.startswith("sandboxes[0]")
    else:
        assert result.entries[0].translation.name


@SETTINGS
@given(document=JSON_VALUES)
def test_any_document_loads_or_is_refused(tmp_path: Path, document: Any) -> None:
    result = _load(tmp_path / "d.yaml", json.dumps(document))
    assert isinstance(result, DeclarationError)


@SETTINGS
@given(text=st.text(alphabet=st.sampled_from(list("ab:- \n[]{}#&*!'\"|>,?%@`\t.0")), max_size=60))
def test_any_text_loads_or_is_refused(tmp_path: Path, text: str) -> None:
    result = _load(tmp_path / "d.yaml", "version: 1\n" + text)
    assert isinstance(result, Declarations | DeclarationError)
