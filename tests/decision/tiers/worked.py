"""The worked examples of the exact tier model as hand-built inputs.

Each row: the input, the destination, and the expected reach refusal (with
the document it names), the explain verdict, the outside verdict, the exit
status, and the documents whose listed verdict is not ``within``.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from lint.decision.model import (
    Allowance,
    Destination,
    EgressRefusal,
    EgressVerdict,
    PortRange,
    SelectorPeer,
)
from lint.decision.tiers.cells import AddressQuery, Query
from lint.decision.tiers.model import (
    CalicoTier,
    Protocol,
    TierInput,
    Undecidable,
)
from tests.decision.reach.scenario import allowance
from tests.decision.tiers.build import (
    ALL2,
    ALLOW,
    DENY,
    DNS,
    KDNS,
    NS_LABEL,
    PASS,
    M,
    N,
    anp,
    banp,
    base,
    calico_np,
    cilium,
    cnp,
    core_np,
    entity,
    gnp,
    local_pods,
    networks,
    pods,
    port,
    ports,
    rule,
    selector,
    to_cidr,
)

WIDENS = EgressRefusal.POLICY_WIDENS_EGRESS
NOT_EVALUABLE = EgressRefusal.NOT_EVALUABLE
NO_ENFORCING = EgressRefusal.NO_ENFORCING_POLICY


def to(text: str) -> tuple[Query, ...]:
    """``8.8.8.8:443/TCP``, ``[2001:db8::1]:443`` (TCP), ``10.0.0.0/7``."""
    protocol: Protocol | None = None
    port_number: int | None = None
    address = text
    if text.startswith("[") or text.count(":") == 1:
        host, _, rest = text.rpartition(":")
        number, _, proto = rest.partition("/")
        protocol, port_number = Protocol(proto or "TCP"), int(number)
        address = host.strip("[]")
    network = ipaddress.ip_network(address, strict=False)
    family = 4 if network.version == 4 else 6
    low = int(network.network_address)
    high = int(network.broadcast_address)
    return (AddressQuery(family, low, high, protocol, port_number),)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Row:
    number: int
    input: TierInput
    dest: str
    refusal: EgressRefusal | None
    names: str | None  # the document the refusal names: "Kind/name"
    verdict: str
    outside: str | None = None  # when it differs
    exit_status: int = 0
    listed: dict[str, EgressVerdict] = field(default_factory=dict)
    allowance: str | None = None


CALICO_DNS_GNP = (
    rule(
        ALLOW,
        [pods(selector({NS_LABEL: "kube-system"}), selector({"k8s-app": "kube-dns"}))],
        port("UDP", 53),
    ),
    rule(
        ALLOW,
        [pods(selector({NS_LABEL: "kube-system"}), selector({"k8s-app": "kube-dns"}))],
        port("TCP", 53),
    ),
)
EXCLUSIONS_V4 = (
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
    "169.254.0.0/16",
    "127.0.0.0/8",
    "168.63.129.16/32",
)
KDNS_ANY53 = Allowance(
    (
        Destination(
            SelectorPeer(
                {"matchLabels": {NS_LABEL: "kube-system"}},
                {"matchLabels": {"k8s-app": "kube-dns"}},
                "the kube-dns pods",
            ),
            (PortRange("UDP", 53), PortRange("TCP", 53), PortRange("SCTP", 53)),
        ),
    ),
    (),
    "all",
    False,
    False,
    "allow",
    allowance("D").named_object,
)
ANP_NS_TEAM = anp(
    "a",
    10,
    rule(DENY, [ALL2]),
    subject=M,
    subject_why="the subject needs the unknown namespace label `team`",
)
BANP_ALLOW_V4 = banp(rule(ALLOW, [networks("0.0.0.0/0")]))
CILIUM_28 = cilium("c", rule(ALLOW, [entity("all")]), deny=[rule(DENY, [to_cidr("10.0.0.0/8")])])
GNP_10 = gnp(
    "g",
    rule(ALLOW, [networks("10.0.0.0/8")], port("TCP", 5432)),
    tier="security",
)


def rows() -> list[Row]:
    r: list[Row] = []
    add = r.append
    a_deny = anp("a", 10, rule(DENY, [ALL2]))
    add(
        Row(
            1,
            base("D", a_deny, anp("b", 20, rule(ALLOW, [ALL2]))),
            "8.8.8.8:443/TCP",
            None,
            None,
            "denied",
        )
    )
    two = base(
        "P",
        anp("a", 10, rule(DENY, [networks(*EXCLUSIONS_V4)])),
        anp("b", 20, rule(ALLOW, [networks("0.0.0.0/0")])),
    )
    add(Row(2, two, "169.254.169.254:80/TCP", None, None, "denied"))
    three = base(
        "P",
        anp("a", 10, rule(DENY, [networks("10.0.0.0/8")])),
        anp("b", 20, rule(ALLOW, [networks("0.0.0.0/0")])),
    )
    widens_b = {"AdminNetworkPolicy/b": EgressVerdict.WIDENS_EGRESS}
    add(
        Row(
            3,
            three,
            "172.16.0.1:443/TCP",
            WIDENS,
            "AdminNetworkPolicy/b",
            "allowed",
            exit_status=1,
            listed=widens_b,
        )
    )
    add(
        Row(4, three, "10.1.2.3:443/TCP", WIDENS, "AdminNetworkPolicy/b", "denied", listed=widens_b)
    )
    five = base(
        "P",
        anp(
            "a",
            10,
            rule(DENY, [networks("169.254.169.254/32")]),
            rule(ALLOW, [networks("169.254.0.0/16")], port("TCP", 80)),
        ),
    )
    widens_a = {"AdminNetworkPolicy/a": EgressVerdict.WIDENS_EGRESS}
    add(
        Row(
            5,
            five,
            "169.254.169.254:80/TCP",
            WIDENS,
            "AdminNetworkPolicy/a",
            "denied",
            listed=widens_a,
        )
    )
    add(
        Row(
            6,
            five,
            "169.254.170.2:80/TCP",
            WIDENS,
            "AdminNetworkPolicy/a",
            "allowed",
            exit_status=1,
            listed=widens_a,
        )
    )
    a_pass = anp("a", 10, rule(PASS, [ALL2]))
    add(Row(7, base("D", a_pass), "8.8.8.8:443/TCP", None, None, "denied"))
    banp_deny = banp(rule(DENY, [ALL2]))
    add(Row(8, base("Dn", a_pass, banp_deny), "8.8.8.8:53/UDP", None, None, "denied"))
    add(Row(9, base("Dn", banp_deny), "8.8.8.8:53/UDP", None, None, "denied"))
    ten = base("Dn", banp(rule(DENY, [networks("0.0.0.0/0")])))
    add(Row(10, ten, "[2001:db8::1]:443", NO_ENFORCING, None, "allowed", exit_status=1))
    add(Row(11, ten, "8.8.8.8:53/UDP", NO_ENFORCING, None, "denied"))
    twelve = base("Dn", anp("a", 10, rule(ALLOW, [KDNS], DNS)), anp("b", 20, rule(DENY, [ALL2])))
    add(Row(12, twelve, "10.96.0.10:53/UDP", None, None, "undecided", "denied"))
    thirteen = base(
        "D", a_deny, anp("b", 10, rule(ALLOW, [networks("8.8.8.8/32")], port("TCP", 443)))
    )
    ne_b = {"AdminNetworkPolicy/b": EgressVerdict.NOT_EVALUABLE}
    add(
        Row(
            13,
            thirteen,
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "AdminNetworkPolicy/b",
            "undecided",
            exit_status=1,
            listed=ne_b,
        )
    )
    add(
        Row(
            14,
            thirteen,
            "8.8.4.4:443/TCP",
            NOT_EVALUABLE,
            "AdminNetworkPolicy/b",
            "denied",
            listed=ne_b,
        )
    )
    fifteen = base("Dn", a_deny, anp("b", 10, rule(DENY, [networks("1.1.1.1/32")])))
    add(Row(15, fifteen, "1.1.1.1:443/TCP", None, None, "denied"))
    sixteen = base(
        "P",
        anp("a", 10, rule(ALLOW, [networks("8.8.8.8/32")])),
        anp("b", 10, rule(DENY, [networks("8.8.8.8/32")])),
    )
    add(Row(16, sixteen, "8.8.8.8:443/TCP", None, None, "undecided", allowance="inside"))
    seventeen = base("Dn", gnp("g", *CALICO_DNS_GNP), calico=True)
    add(Row(17, seventeen, "8.8.8.8:443/TCP", None, None, "denied"))
    add(
        Row(
            18,
            base("Dn", gnp("g", *CALICO_DNS_GNP, subject=N), calico=True),
            "8.8.8.8:443/TCP",
            NO_ENFORCING,
            None,
            "allowed",
            exit_status=1,
            listed={"GlobalNetworkPolicy.projectcalico.org/g": EgressVerdict.DOES_NOT_SELECT},
        )
    )
    platform = CalicoTier("platform", 100)
    add(
        Row(
            19,
            base("D", gnp("g", rule(PASS), tier="platform"), tiers=[platform], calico=True),
            "8.8.8.8:443/TCP",
            None,
            None,
            "denied",
        )
    )
    g_pass = {"GlobalNetworkPolicy.projectcalico.org/g": EgressVerdict.WIDENS_EGRESS}
    add(
        Row(
            20,
            base("D", gnp("g", rule(PASS), order=10), calico=True),
            "8.8.8.8:443/TCP",
            WIDENS,
            "GlobalNetworkPolicy.projectcalico.org/g",
            "allowed",
            exit_status=1,
            listed=g_pass,
        )
    )
    security = CalicoTier("security", 500)
    twenty_one = base("Dn", GNP_10, tiers=[security], calico=True)
    add(
        Row(
            21,
            twenty_one,
            "8.8.8.8:443/TCP",
            WIDENS,
            "GlobalNetworkPolicy.projectcalico.org/g",
            "denied",
            listed=g_pass,
        )
    )
    add(
        Row(
            22,
            twenty_one,
            "10.1.2.3:5432/TCP",
            WIDENS,
            "GlobalNetworkPolicy.projectcalico.org/g",
            "allowed",
            exit_status=1,
            listed=g_pass,
        )
    )
    passing = CalicoTier("security", 500, pass_by_default=True)
    add(
        Row(
            23,
            base("Dn", GNP_10, tiers=[passing], calico=True),
            "8.8.8.8:443/TCP",
            WIDENS,
            "GlobalNetworkPolicy.projectcalico.org/g",
            "allowed",
            exit_status=1,
            listed=g_pass,
        )
    )
    allow_443 = rule(ALLOW, None, port("TCP", 443))
    twenty_four = base(
        "D", gnp("a-deny", rule(DENY), order=100), gnp("b-allow", allow_443, order=100), calico=True
    )
    add(Row(24, twenty_four, "8.8.8.8:443/TCP", None, None, "denied"))
    twenty_five = base(
        "D", gnp("a-allow", allow_443, order=100), gnp("b-deny", rule(DENY), order=100), calico=True
    )
    add(
        Row(
            25,
            twenty_five,
            "8.8.8.8:443/TCP",
            WIDENS,
            "GlobalNetworkPolicy.projectcalico.org/a-allow",
            "allowed",
            exit_status=1,
            listed={"GlobalNetworkPolicy.projectcalico.org/a-allow": EgressVerdict.WIDENS_EGRESS},
        )
    )
    twenty_six = base(
        "D", gnp("x", rule(DENY), order=100), calico_np("y", allow_443, order=100), calico=True
    )
    add(
        Row(
            26,
            twenty_six,
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "NetworkPolicy.projectcalico.org/y",
            "undecided",
            exit_status=1,
            listed={"NetworkPolicy.projectcalico.org/y": EgressVerdict.NOT_EVALUABLE},
        )
    )
    twenty_seven = base(
        "DC", cilium("c", rule(ALLOW, [entity("world")]), deny=[rule(DENY, [entity("all")])])
    )
    add(Row(27, twenty_seven, "1.1.1.1:443/TCP", None, None, "denied"))
    twenty_eight = base("PC", CILIUM_28)
    c_widens = {"CiliumNetworkPolicy/c": EgressVerdict.WIDENS_EGRESS}
    add(
        Row(
            28,
            twenty_eight,
            "10.1.2.3:443/TCP",
            WIDENS,
            "CiliumNetworkPolicy/c",
            "undecided",
            "denied",
            1,
            c_widens,
        )
    )
    add(
        Row(
            29,
            twenty_eight,
            "10.0.0.0/7",
            WIDENS,
            "CiliumNetworkPolicy/c",
            "undecided",
            "partly-allowed",
            1,
            c_widens,
        )
    )
    add(
        Row(
            30,
            twenty_eight,
            "8.8.8.8:443/TCP",
            WIDENS,
            "CiliumNetworkPolicy/c",
            "allowed",
            listed=c_widens,
            allowance="inside",
        )
    )
    kdns_cilium = pods(selector({NS_LABEL: "kube-system"}), selector({"k8s-app": "kube-dns"}))
    any53 = ports(("TCP", 53), ("UDP", 53), ("SCTP", 53))
    thirty_one = base(
        "Dn", cilium("c", rule(ALLOW, [kdns_cilium], any53)), cilium_r=True, allowance_of=KDNS_ANY53
    )
    add(Row(31, thirty_one, "10.96.0.10:53/SCTP", None, None, "undecided", "denied"))
    np_b = core_np("np", rule(ALLOW, [local_pods({"app": "b"})]))
    add(
        Row(
            32,
            base("D", np_b),
            "8.8.8.8:53/UDP",
            WIDENS,
            "NetworkPolicy/np",
            "undecided",
            "denied",
            1,
            {"NetworkPolicy/np": EgressVerdict.WIDENS_EGRESS},
        )
    )
    add(
        Row(
            33,
            base("Dn", ANP_NS_TEAM),
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "AdminNetworkPolicy/a",
            "undecided",
            exit_status=1,
            listed={"AdminNetworkPolicy/a": EgressVerdict.NOT_EVALUABLE},
        )
    )
    add(Row(34, base("Dn", a_deny), "8.8.8.8:443/TCP", None, None, "denied"))
    add(Row(35, base("Dn", a_deny), "8.8.8.8:443/TCP", None, None, "denied"))
    add(Row(36, base("D", BANP_ALLOW_V4), "8.8.8.8:443/TCP", None, None, "denied"))
    uncredited_banp = banp(
        rule(ALLOW, [networks("0.0.0.0/0")]),
        credit=M,
        credit_why="BaselineAdminNetworkPolicy is not credited",
    )
    add(
        Row(
            37,
            base("DC", uncredited_banp),
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "BaselineAdminNetworkPolicy/default",
            "undecided",
            exit_status=1,
            listed={"BaselineAdminNetworkPolicy/default": EgressVerdict.NOT_EVALUABLE},
        )
    )
    a_uncredited = anp("a", 10, rule(DENY, [ALL2]), credit=M)
    other_cilium = cilium("other", rule(ALLOW), subject=N)
    add(
        Row(
            38,
            base("Dn", a_uncredited, other_cilium, cilium_r=True),
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "AdminNetworkPolicy/a",
            "undecided",
            exit_status=1,
            listed={
                "AdminNetworkPolicy/a": EgressVerdict.NOT_EVALUABLE,
                "CiliumNetworkPolicy/other": EgressVerdict.DOES_NOT_SELECT,
            },
        )
    )
    thirty_nine = base(
        "Dn",
        cnp("Admin", "adm", 5, rule(PASS, [ALL2])),
        cnp("Baseline", "base", 1, rule(DENY, [ALL2])),
    )
    add(Row(39, thirty_nine, "8.8.8.8:443/TCP", None, None, "denied"))
    forty = base(
        "Dn",
        cnp("Baseline", "p1", 1, rule(PASS, [ALL2])),
        cnp("Baseline", "p2", 2, rule(DENY, [ALL2])),
    )
    add(
        Row(
            40,
            forty,
            "8.8.8.8:443/TCP",
            WIDENS,
            "ClusterNetworkPolicy/p1",
            "allowed",
            exit_status=1,
            listed={"ClusterNetworkPolicy/p1": EgressVerdict.WIDENS_EGRESS},
        )
    )
    forty_one = base(
        "D",
        gnp("g", rule(DENY, [networks("8.8.8.8/32")]), tier="platform"),
        anp("a", 10, rule(ALLOW, [networks("8.8.8.8/32")])),
        tiers=[platform],
        calico=True,
    )
    add(Row(41, forty_one, "8.8.8.8:443/TCP", None, None, "denied"))
    named_port = base("D", anp("a", 10, rule(ALLOW, [KDNS])))
    add(
        Row(
            42,
            named_port,
            "10.96.0.10:8080/TCP",
            WIDENS,
            "AdminNetworkPolicy/a",
            "undecided",
            "denied",
            1,
            widens_a,
        )
    )
    fragment = pods(selector({NS_LABEL: "sbx"}), None, exact=False)
    forty_three = base("D", gnp("g", rule(ALLOW, [fragment])), calico=True)
    add(
        Row(
            43,
            forty_three,
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "GlobalNetworkPolicy.projectcalico.org/g",
            "undecided",
            "denied",
            1,
            {"GlobalNetworkPolicy.projectcalico.org/g": EgressVerdict.NOT_EVALUABLE},
        )
    )
    antrea = Undecidable("ClusterNetworkPolicy.crd.antrea.io", "x", "its kind is not modelled")
    add(
        Row(
            44,
            base("D", undecidable=[antrea]),
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "ClusterNetworkPolicy.crd.antrea.io/x",
            "undecided",
            exit_status=1,
        )
    )
    add(
        Row(
            45,
            base("Dn", banp(rule(DENY, [ALL2]), credit=M)),
            "8.8.8.8:53/UDP",
            NOT_EVALUABLE,
            "BaselineAdminNetworkPolicy/default",
            "undecided",
            exit_status=1,
            listed={"BaselineAdminNetworkPolicy/default": EgressVerdict.NOT_EVALUABLE},
        )
    )
    forty_six = base(
        "D", anp("a", 10, rule(DENY, [ALL2]), credit=M), anp("b", 20, rule(ALLOW, [ALL2]), credit=M)
    )
    add(
        Row(
            46,
            forty_six,
            "8.8.8.8:443/TCP",
            NOT_EVALUABLE,
            "AdminNetworkPolicy/b",
            "undecided",
            exit_status=1,
            listed=ne_b,
            allowance="outside",
        )
    )
    add(Row(47, seventeen, "8.8.8.8:443/TCP", None, None, "denied"))
    return r
