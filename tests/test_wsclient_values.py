"""bench.wsclient.another_value: the load client only sends values a browser could (within the widget's bounds)."""
from __future__ import annotations

import itertools

from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.Slider_pb2 import Slider

from bench.wsclient import Widget, another_value


def _number(low: int, high: int, current: int) -> Widget:
    proto = NumberInput(id="n", label="Row", has_min=True, has_max=True, min=low, max=high, step=1,
                        data_type=NumberInput.INT, default=current)
    return Widget("number_input", proto.id, proto.label, proto)


def _slider(low: float, high: float, step: float, current: list[float]) -> Widget:
    proto = Slider(id="s", label="Query frame", min=low, max=high, step=step, default=current)
    return Widget("slider", proto.id, proto.label, proto)


def test_a_number_input_of_one_value_has_no_other():
    """The image's row 0..0 (a patch as large as the picture): the old client sent -1, which no browser can."""
    assert another_value(_number(0, 0, 0)) is None


def test_every_value_sent_is_another_one_within_the_bounds():
    for low, high, current in itertools.product(range(3), range(3), range(3)):
        if low <= current <= high:
            value = another_value(_number(low, high, current))
            assert value is None if low == high else (low <= value <= high and value != current)
    for high, step in itertools.product((1.0, 2.0, 5.0), (1.0, 2.0, 3.0)):
        for current in ([0.0], [high], [0.0, high]):
            value = another_value(_slider(0.0, high, step, current))
            if step > high:
                assert value is None
            else:
                assert all(0.0 <= v <= high for v in value) and value != current and value == sorted(value)
