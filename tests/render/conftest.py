"""Fixtures of the rendering tests: the real tools, or a skip with a reason."""

from __future__ import annotations

import pytest

from tests.render.tools import Tools, find_tools


@pytest.fixture(scope="session")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Tools:
    return find_tools(str(tmp_path_factory.getbasetemp() / "render-tools"))


@pytest.fixture
def helm(tools: Tools) -> Tools:
    if not tools.helm:
        pytest.skip("helm is not on the PATH (bash ../shared/tools/k8s-tools.sh DIR installs it)")
    return tools


@pytest.fixture
def kustomize(tools: Tools) -> Tools:
    if not tools.kustomize:
        pytest.skip(
            "neither kustomize nor kubectl is on the PATH "
            "(bash ../shared/tools/k8s-tools.sh DIR installs kubectl)"
        )
    return tools
