"""Hand-built tier inputs: the §9 base (namespace ``sbx``) and short
constructors for rules, peers and documents of every slot kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lint.decision.cidr import parse_cidr
from lint.decision.constants import IPV4_EXCLUSIONS, IPV6_EXCLUSIONS
from lint.decision.model import Allowance, Cidr, Tri
from lint.decision.reach.common import Requirement, StrictSelector
from lint.decision.tiers.model import (
    EVERY_PORT,
    Action,
    CalicoTier,
    CidrBlock,
    PeerMatch,
    PodSet,
    Ports,
    PortSpan,
    Protocol,
    Slot,
    TierDocument,
    TierInput,
    TierRule,
    Undecidable,
)
from tests.decision.reach.scenario import allowance

NAMESPACE = "sbx"
Y, M, N = Tri.YES, Tri.UNKNOWN, Tri.NO
ALLOW, DENY, PASS = Action.ALLOW, Action.DENY, Action.PASS
NS_LABEL = "kubernetes.io/metadata.name"


def cidr(text: str) -> Cidr:
    parsed = parse_cidr(text)
    assert parsed is not None, text
    return parsed


def selector(labels: Mapping[str, str] | None = None, *reqs: Requirement) -> StrictSelector:
    return StrictSelector(tuple(sorted((labels or {}).items())), tuple(reqs))


# --- ports -----------------------------------------------------------------------------


def port(protocol: str, low: int, high: int | None = None) -> Ports:
    return Ports(spans=(PortSpan(Protocol(protocol), low, low if high is None else high),))


def ports(*spans: tuple[str, int]) -> Ports:
    return Ports(spans=tuple(PortSpan(Protocol(p), n, n) for p, n in spans))


DNS = ports(("UDP", 53), ("TCP", 53))


# --- peers -----------------------------------------------------------------------------


def blocks(*cidrs: str, excepts: Sequence[str] = ()) -> tuple[CidrBlock, ...]:
    holes = tuple(cidr(e) for e in excepts)
    return tuple(
        CidrBlock(cidr(c), tuple(h for h in holes if h.family == cidr(c).family)) for c in cidrs
    )


def networks(*cidrs: str, excepts: Sequence[str] = ()) -> PeerMatch:
    """ANP/CNP ``networks``, Calico ``nets``: the address test for every owner."""
    return PeerMatch(f"networks {list(cidrs)}", blocks=blocks(*cidrs, excepts=excepts), on_name=M)


ALL2 = networks("0.0.0.0/0", "::/0")


def ip_block(text: str, excepts: Sequence[str] = (), *, form: str = "api") -> PeerMatch:
    """A core ``ipBlock``: exact under Calico, POD N under Cilium, else lowered."""
    b = blocks(text, excepts=excepts)
    if form == "calico":
        return PeerMatch(f"ipBlock {text}", blocks=b, on_name=M)
    if form == "cilium":
        return PeerMatch(f"ipBlock {text}", blocks=b, pod=N, node=M, on_name=M)
    return PeerMatch(f"ipBlock {text}", blocks=b, pod=M, node=M, on_name=M)


def to_cidr(text: str) -> PeerMatch:
    """Cilium ``toCIDR``: OUT by address, never a pod, a node maybe."""
    return PeerMatch(f"toCIDR {text}", blocks=blocks(text), pod=N, node=M, on_name=M)


def pods(
    namespaces: StrictSelector | None,
    pod: StrictSelector | None,
    *,
    admin: bool = False,
    exact: bool = True,
    text: str = "pods",
) -> PeerMatch:
    """A selector peer (NODE: N for ANP/CNP, M for the others)."""
    return PeerMatch(
        text,
        out=N,
        node=N if admin else M,
        pod=PodSet(namespaces, pod, exact=exact),
        on_name=N,
    )


def local_pods(labels: Mapping[str, str], **kw: object) -> PeerMatch:
    return pods(selector({NS_LABEL: NAMESPACE}), selector(labels), **kw)  # type: ignore[arg-type]


KDNS = pods(selector({NS_LABEL: "kube-system"}), selector({"k8s-app": "kube-dns"}), admin=True)


def entity(name: str) -> PeerMatch:
    table = {
        "all": (Y, Y, Y),
        "world": (Y, N, N),
        "cluster": (N, Y, Y),
    }
    out, pod, node = table.get(name, (M, M, M))
    return PeerMatch(f"toEntities {name}", out=out, pod=pod, node=node, on_name=M)


def fqdn(*names: str, one_label: bool = False) -> PeerMatch:
    """An FQDN peer; ``one_label``: Cilium's reading of ``*.``."""
    return PeerMatch(
        f"domains {list(names)}",
        out=M,
        pod=M,
        node=M,
        names=names,
        by_name=True,
        one_label=one_label,
    )


# --- rules and documents ------------------------------------------------------------------


def rule(
    action: Action | frozenset[Action],
    peers: Sequence[PeerMatch] | None = None,
    port_set: Ports = EVERY_PORT,
    index: int = 0,
) -> TierRule:
    actions = action if isinstance(action, frozenset) else frozenset({action})
    return TierRule(
        actions,
        port_set,
        None if peers is None else tuple(peers),
        index,
        ("spec", "egress", index),
        f"rule {index}",
    )


def rules(*items: TierRule) -> tuple[TierRule, ...]:
    """Rules renumbered in order."""
    return tuple(
        TierRule(r.actions, r.ports, r.peers, i, ("spec", "egress", i), f"rule {i}")
        for i, r in enumerate(items)
    )


def document(
    kind: str,
    name: str,
    slot: str,
    items: Sequence[TierRule],
    *,
    order: float | None = None,
    tie_class: str | None = None,
    subject: Tri = Y,
    types: Tri = Y,
    credit: Tri = Y,
    deny: Sequence[TierRule] = (),
    isolates: bool = False,
    namespace: str | None = None,
    **extra: object,
) -> TierDocument:
    return TierDocument(
        kind,
        name,
        namespace,
        slot,
        order,
        tie_class or kind,
        subject,
        types,
        credit,
        rules(*items),
        rules(*deny),
        isolates,
        **extra,  # type: ignore[arg-type]
    )


def anp(name: str, priority: float, *items: TierRule, **kw: object) -> TierDocument:
    return document("AdminNetworkPolicy", name, Slot.ADMIN, items, order=priority, **kw)  # type: ignore[arg-type]


def cnp(tier: str, name: str, priority: float, *items: TierRule, **kw: object) -> TierDocument:
    slot = Slot.ADMIN if tier == "Admin" else Slot.BASELINE
    return document("ClusterNetworkPolicy", name, slot, items, order=priority, **kw)  # type: ignore[arg-type]


def banp(*items: TierRule, **kw: object) -> TierDocument:
    return document("BaselineAdminNetworkPolicy", "default", Slot.BASELINE, items, **kw)  # type: ignore[arg-type]


def gnp(
    name: str, *items: TierRule, tier: str = "default", order: float | None = None, **kw: object
) -> TierDocument:
    return document(
        "GlobalNetworkPolicy.projectcalico.org",
        name,
        tier,
        items,
        order=order,
        **kw,  # type: ignore[arg-type]
    )


def calico_np(
    name: str, *items: TierRule, tier: str = "default", order: float | None = None, **kw: object
) -> TierDocument:
    return document(
        "NetworkPolicy.projectcalico.org",
        name,
        tier,
        items,
        order=order,
        namespace=NAMESPACE,
        **kw,  # type: ignore[arg-type]
    )


def core_np(name: str, *items: TierRule, **kw: object) -> TierDocument:
    """A core NetworkPolicy isolating egress (Calico order 1000)."""
    kw.setdefault("isolates", True)
    return document(
        "NetworkPolicy",
        name,
        Slot.NETWORK_POLICY,
        items,
        order=1000,
        tie_class="k8s",
        namespace=NAMESPACE,
        **kw,  # type: ignore[arg-type]
    )


def cilium(
    name: str, *items: TierRule, deny: Sequence[TierRule] = (), **kw: object
) -> TierDocument:
    kw.setdefault("isolates", True)
    return document(
        "CiliumNetworkPolicy",
        name,
        Slot.NETWORK_POLICY,
        items,
        deny=deny,
        namespace=NAMESPACE,
        **kw,  # type: ignore[arg-type]
    )


# --- the §9 / §12.8 bases ------------------------------------------------------------------


def named_object(code: str, form: str = "api") -> TierDocument:
    """The translation of D or P as the core NetworkPolicy it is."""
    kube_system = pods(selector({NS_LABEL: "kube-system"}), None, text="kube-system")
    if code in ("D", "DC"):
        return core_np("t-egress", rule(ALLOW, [kube_system], DNS))
    kdns = pods(
        selector({NS_LABEL: "kube-system"}), selector({"k8s-app": "kube-dns"}), text="kube-dns"
    )
    wide = [
        ip_block("0.0.0.0/0", IPV4_EXCLUSIONS, form=form),
        ip_block("::/0", IPV6_EXCLUSIONS, form=form),
    ]
    return core_np("t-egress", rule(ALLOW, [kdns], DNS), rule(ALLOW, wide))


def base(
    code: str,
    *documents: TierDocument,
    tiers: Sequence[CalicoTier] = (),
    undecidable: Sequence[Undecidable] = (),
    calico: bool = False,
    cilium_r: bool | None = None,
    allowance_of: Allowance | None = None,
) -> TierInput:
    """The row's input: code D/DC/P/PC add the named object; Dn none."""
    cilium_r = code.endswith("C") if cilium_r is None else cilium_r
    form = "calico" if calico else "cilium" if cilium_r else "api"
    named = () if code == "Dn" else (named_object(code, form),)
    return TierInput(
        NAMESPACE,
        allowance_of or allowance("D" if code == "Dn" else code),
        (*named, *documents),
        tuple(tiers),
        tuple(undecidable),
        calico_form=calico,
        cilium_r=cilium_r,
    )
