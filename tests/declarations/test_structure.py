"""The plain structure check (``lint.declarations.structure``) vouches only
for files the pydantic models take, with the values they take; whatever it
does not vouch for goes to the models, which word the errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from lint.declarations import DeclarationError, models, structure
from lint.declarations.models import DeclarationFileModel, as_checked
from lint.declarations.reading import parse_yaml
from lint.declarations.structure import checked_structure
from tests.declarations.conftest import LoadText

REPO = Path(__file__).resolve().parents[2]

TABLES: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (models.DnsNamesModel, structure.DNS_NAMES_FIELDS),
    (models.NarrowingModel, structure.NARROWING_FIELDS),
    (models.PerSandboxModel, structure.PER_SANDBOX_FIELDS),
    (models.PolicyModel, structure.POLICY_FIELDS),
    (models.EgressModel, structure.EGRESS_FIELDS),
    (models.DefaultsModel, structure.DEFAULTS_FIELDS),
    (models.IngressModel, structure.INGRESS_FIELDS),
    (models.WorkloadModel, structure.WORKLOAD_FIELDS),
    (models.ExpectModel, structure.EXPECT_FIELDS),
    (models.SandboxModel, structure.SANDBOX_FIELDS),
    (models.RenderModel, structure.RENDER_FIELDS),
    (models.NamespaceModel, structure.NAMESPACE_FIELDS),
    (models.AgentSandboxModel, structure.AGENT_SANDBOX_FIELDS),
    (models.ClusterModel, structure.CLUSTER_FIELDS),
    (models.DeclarationFileModel, structure.FILE_FIELDS),
]


@pytest.mark.parametrize(("model", "table"), TABLES, ids=lambda item: getattr(item, "__name__", ""))
def test_each_table_has_its_model_s_keys(model: type[BaseModel], table: dict[str, Any]) -> None:
    assert sorted(table) == sorted(
        field.alias or name for name, field in model.model_fields.items()
    )


def test_every_model_has_a_table() -> None:
    defined = {
        value
        for value in vars(models).values()
        if isinstance(value, type)
        and issubclass(value, models._Strict)
        and value is not models._Strict
    }
    assert defined == {model for model, _ in TABLES}


# Files drawn mostly in the models' shape, each field now and then given a
# value from the edges of their types: strict types take no bool for an int
# and no int for a string, `version: 1` is also taken as `true` or `1.0`, and
# a lone surrogate is no string to pydantic.
WORDS = st.sampled_from(
    [
        "",
        "a",
        "core",
        "cilium",
        "namzu",
        "none",
        "direct",
        "unverified",
        "Deployment",
        "NetworkPolicy",
        "deny-all",
        "x\ud800",
        "é",
    ]
)
SCALARS = st.one_of(
    st.sampled_from([None, True, False, 0, 1, 1.0, 1024, 65535, 65536, -1, 2]), WORDS
)
ANYTHING = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(WORDS, inner, max_size=2),
    max_leaves=4,
)


@st.composite
def field(draw: st.DrawFn, good: st.SearchStrategy[Any]) -> Any:
    """Mostly a value of the field's own shape, sometimes anything."""
    return draw(good) if draw(st.integers(0, 12)) else draw(ANYTHING)


@st.composite
def mapping(
    draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Any]], *required: str
) -> dict[str, Any]:
    """Any subset of the optional keys and the required ones, now and then
    without one of those or with a key the model does not know."""
    given = draw(
        st.fixed_dictionaries(
            {key: fields[key] for key in required},
            optional={key: value for key, value in fields.items() if key not in required},
        )
    )
    odd = draw(st.integers(0, 24))
    if odd == 0:
        given["policyy"] = 1
    elif odd <= len(required):
        del given[required[odd - 1]]
    return given


def one_of(*words: str) -> st.SearchStrategy[Any]:
    return field(st.sampled_from(words))


TEXT = field(st.sampled_from(["a", "", "é"]))
NON_EMPTY = field(st.sampled_from(["a", "t", "é"]))
ANY = ANYTHING
ENGINE = one_of("core", "cilium")
HOST = one_of("namzu", "none")
DNS_NAMES = mapping({"namespace": ANY, "clusterDomain": ANY, "searchSuffixes": ANY})
NARROWING = mapping(
    {
        "ports": ANY,
        "hostPorts": ANY,
        "dnsNames": field(DNS_NAMES),
        "tlsServerNames": ANY,
        "tlsPorts": ANY,
    }
)
PER_SANDBOX = mapping(
    {
        "engine": ANY,
        "admissionPolicyName": ANY,
        "admissionPolicyBindingName": ANY,
        "labelKey": ANY,
        "narrowing": field(NARROWING),
    }
)
POLICY = mapping(
    {"kind": TEXT, "exceptCidrs": ANY, "allowedHosts": ANY, "allowedHostsFile": NON_EMPTY},
    "kind",
)
EGRESS_FIELDS = {
    "policy": field(POLICY),
    "allow": ANY,
    "allowHosts": ANY,
    "engine": ENGINE,
    "verify": TEXT,
    "networkPolicyName": TEXT,
    "ciliumNarrowing": field(NARROWING),
    "profile": ANY,
    "profileLabelKey": ANY,
    "perSandbox": field(PER_SANDBOX),
}
KEYS = st.sampled_from(["a", "", "é", "x\ud800"])
LABELS = field(st.dictionaries(KEYS, TEXT, max_size=2))
# A namespace, or one per environment (issue 28): names empty or not.
NAMESPACE = st.one_of(NON_EMPTY, field(st.dictionaries(KEYS, TEXT, max_size=2)))
ENVIRONMENTS = field(st.lists(NON_EMPTY, max_size=2))
KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod")
SANDBOX = mapping(
    {
        "template": NON_EMPTY,
        "workload": field(mapping({"kind": one_of(*KINDS), "name": NON_EMPTY}, "kind", "name")),
        "host": HOST,
        "expect": field(
            mapping(
                {"kind": one_of("NetworkPolicy", "CiliumNetworkPolicy"), "name": NON_EMPTY},
                "kind",
                "name",
            )
        ),
        "namespace": NAMESPACE,
        "environments": ENVIRONMENTS,
        "external": field(st.booleans()),
        "podLabels": LABELS,
        "paths": field(st.lists(one_of("direct", "pooled", "warm"), max_size=3)),
        "egress": field(mapping(EGRESS_FIELDS)),
        "ingress": field(
            st.one_of(
                st.just("unverified"),
                mapping({"agentPort": field(st.integers(0, 65536)), "engine": ENGINE}),
            )
        ),
    }
)
WORD_LIST = field(st.lists(NON_EMPTY, max_size=3))
RENDER = mapping(
    {
        "name": NON_EMPTY,
        "helm": NON_EMPTY,
        "kustomize": NON_EMPTY,
        "values": WORD_LIST,
        "set": WORD_LIST,
        "release": NON_EMPTY,
        "namespace": NON_EMPTY,
        "kubeVersion": NON_EMPTY,
        "apiVersions": WORD_LIST,
    },
    "name",
)
FILES = mapping(
    {
        "version": field(st.just(1)),
        "defaultNamespace": NON_EMPTY,
        "namespaces": field(st.dictionaries(KEYS, field(mapping({"labels": LABELS})), max_size=2)),
        "defaults": field(mapping({**EGRESS_FIELDS, "host": HOST, "environments": ENVIRONMENTS})),
        "renders": field(st.lists(field(RENDER), max_size=3)),
        "agentSandbox": field(mapping({"version": NON_EMPTY})),
        "cluster": field(
            mapping(
                {
                    "enforces": field(
                        st.lists(one_of("Calico", "Cilium", "AdminNetworkPolicy"), max_size=3)
                    )
                }
            )
        ),
        "sandboxes": field(st.lists(field(SANDBOX), min_size=1, max_size=3)),
    },
    "version",
    "sandboxes",
)


def by_models(value: Any) -> structure.CheckedFile | None:
    try:
        return as_checked(DeclarationFileModel.model_validate(value))
    except ValidationError:
        return None


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(FILES)
@example({"version": 1, "sandboxes": [{"template": "t", "ingress": {"agentPort": True}}]})
@example({"version": 1, "sandboxes": [{"template": "t\ud800"}]})
@example({"version": 1, "sandboxes": [{"workload": {"kind": "Job", "name": "j"}}]})
def test_what_the_plain_check_takes_the_models_take_alike(value: dict[str, Any]) -> None:
    plain = checked_structure(value)
    event("taken plainly" if plain is not None else "left to the models")
    if plain is not None:
        assert by_models(value) == plain


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(FILES)
def test_a_file_the_models_take_is_taken_plainly_unless_its_version_is_odd(
    value: dict[str, Any],
) -> None:
    """The plain check leaves to the models only what it must: the odd
    spellings of `version` and strings with lone surrogates."""
    if type(value.get("version")) is int and "\\ud800" not in repr(value):
        assert (checked_structure(value) is None) == (by_models(value) is None)


@pytest.mark.parametrize(
    "text",
    [
        "version: 1.0\nsandboxes: [{template: t, egress: {policy: {kind: deny-all}}}]\n",
        "version: true\nsandboxes: [{template: t, egress: {policy: {kind: deny-all}}}]\n",
        "version: 1\nsandboxes: [{template: t, egress: {policy: {kind: deny-all}}, "
        'podLabels: {"a\\ud800": b}}]\n',
    ],
)
def test_a_file_only_the_models_take_loads_through_them(text: str, load_text: LoadText) -> None:
    assert checked_structure(parse_yaml(text, "f").value) is None
    declarations = load_text(text)
    assert [entry.template for entry in declarations.entries] == ["t"]


DECLARATION_FILES = sorted(REPO.glob("fixtures/**/.egress-lint.yaml"))


@pytest.mark.parametrize("file", DECLARATION_FILES, ids=lambda file: file.parent.name)
def test_the_fixtures_files_are_taken_plainly_when_the_models_take_them(file: Path) -> None:
    try:
        value = parse_yaml(file.read_text(encoding="utf-8"), file.name).value
    except DeclarationError:
        pytest.skip("not YAML this file reads")
    assert checked_structure(value) == by_models(value)


def test_the_demo_s_file_is_among_them() -> None:
    demo = REPO / "fixtures/demo/.egress-lint.yaml"
    assert demo in DECLARATION_FILES
    assert checked_structure(parse_yaml(demo.read_text(encoding="utf-8"), "f").value) is not None
