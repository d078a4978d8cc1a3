"""Types of the hand evaluator compiled ahead of time from _evaluator.c (see evaluator.py)."""

import numpy as np
import numpy.typing as npt

SOURCE_SHA256: str  # of the sources it was built from (setup.py; harness/compiled.py)

def strength(cards: bytes) -> int: ...
def evaluate(hands: npt.NDArray[np.uint8], k: int, out: npt.NDArray[np.int32]) -> None: ...
def count_seven_card_hands(lowest: bytes, out: npt.NDArray[np.int64]) -> None: ...
