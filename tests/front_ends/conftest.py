"""What the front-ends-agree tests share: the class questions' sources, loaded straight from the engine once per
test module."""
from __future__ import annotations

import pytest

from engine.classroom.questions import EngineSources


@pytest.fixture(scope="module")
def sources():
    return EngineSources()
