"""Answer normalisation on hand-written answers: the letters (Latin, Cyrillic, look-alikes, the
ambiguous В), strong and weak letters, answer words, two letters joined, options named by an
inflected form, contradictions, in both option orders."""

from __future__ import annotations

import pytest

from winoscope.languages import Language
from winoscope.protocols.answers import (
    AMBIGUOUS,
    INVALID,
    letter_of,
    normalise,
    option_named,
)
from winoscope.records import Option

AB = ("A", "B")
ABC = ("A", "B", "C")

DOCTOR = ("лікар", "target", ("лікарка",))
DESIGNER = ("дизайнер", "distractor", ("дизайнерка",))


def _options(
    first: tuple[str, str, tuple[str, ...]], second: tuple[str, str, tuple[str, ...]]
) -> tuple[Option, Option]:
    """A = first, B = second: (wording, role, forms)."""
    return (Option("A", *first), Option("B", *second))


# the doctor is A in one order, B in the other
ORDERS = {"doctor_first": _options(DOCTOR, DESIGNER), "doctor_second": _options(DESIGNER, DOCTOR)}


# --- letter_of ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "labels", "expected"),
    [
        ("B", AB, ("B", True)),
        ("A", AB, ("A", True)),
        ("  b)  ", AB, ("B", True)),  # lower case, a bracket, spaces around
        ("**A**", AB, ("A", True)),
        ("(B)", AB, ("B", True)),
        ("«A»", AB, ("A", True)),
        ("'B',", AB, ("B", True)),
        ("B. дизайнером", AB, ("B", True)),  # punctuation after the letter: strong
        ("A лікар", AB, ("A", False)),  # words after it: weak
        ("A\tлікар", AB, ("A", False)),
        ("Відповідь: B", AB, ("B", True)),
        ("відповідь - A", AB, ("A", True)),
        ("**Відповідь:** B", AB, ("B", True)),
        ("Правильна відповідь: A", AB, ("A", True)),
        ("Answer: b", AB, ("B", True)),
        ("Варіант A лікар", AB, ("A", False)),  # weak after an answer word too
        ("Відповідь: A лікар", AB, ("A", False)),
        ("C", ABC, ("C", True)),
        ("C", AB, None),  # a letter that is not offered
        ("X", AB, None),
        ("1", AB, None),  # not a letter
        ("Будівельник", AB, None),  # no standalone letter
        ("лікар", AB, None),
        ("", AB, None),
        ("   ", AB, None),
        # Cyrillic: А and Б by position, strong only
        ("Б", AB, ("B", True)),
        ("а)", AB, ("A", True)),
        ("Відповідь: Б.", AB, ("B", True)),
        ("А лікар", AB, None),  # the conjunction "а", not a letter
        ("В реченні лікар", AB, None),  # the preposition "в"
        # В is the third letter: C where offered, ambiguous where only its look (B) is
        ("В.", ABC, ("C", True)),
        ("В.", AB, (AMBIGUOUS, True)),
        ("в", AB, (AMBIGUOUS, True)),
        ("В.", ("A", "D"), None),  # neither its position nor its look offered
        ("С", ABC, ("C", True)),  # Cyrillic С looks like C
        ("С", AB, None),
        # labels in Cyrillic are letters of their own
        ("Б", ("А", "Б"), ("Б", True)),
        ("б лікар", ("А", "Б"), ("Б", False)),
    ],
)
def test_letter_of_by_hand(
    answer: str, labels: tuple[str, ...], expected: tuple[str, bool] | None
) -> None:
    assert letter_of(answer, labels) == expected


def test_the_longest_answer_word_is_tried_first() -> None:
    # "option b" before "option": "Option B: A" answers A (shortest first would read B)
    lang = Language("xx-answers", "Test", answer_words=("option", "option b"))
    assert letter_of("Option B: A", AB, lang) == ("A", True)
    assert letter_of("Option: B", AB, lang) == ("B", True)


def test_without_answer_words_only_a_leading_letter_counts() -> None:
    lang = Language("xx-bare", "Test")
    assert letter_of("b.", AB, lang) == ("B", True)
    assert letter_of("Answer: B", AB, lang) is None
    # the English words: "Answer" is one, "Відповідь" is not
    assert letter_of("Answer: B", AB, "en") == ("B", True)
    assert letter_of("Відповідь: B", AB, "en") is None


# --- option_named ------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ORDERS)
def test_option_named_by_any_form(order: str) -> None:
    opts = ORDERS[order]
    doctor = next(o for o in opts if o.text == "лікар" or "лікар" in o.forms)
    designer = next(o for o in opts if o is not doctor)
    assert option_named("лікар", opts) is doctor
    assert option_named("Лікарці", opts) is doctor  # an inflected form of the other gender
    assert option_named("Це дизайнером", opts) is designer
    assert option_named("лікар і дизайнер", opts) is None  # both
    assert option_named("нікого", opts) is None  # neither


def test_only_the_head_noun_of_an_option_names_it() -> None:
    opts = (
        Option("A", "медична сестра", "target", ("медичний брат",)),
        Option("B", "водій", "distractor"),
    )
    assert option_named("сестрою", opts) is opts[0]
    assert option_named("братом", opts) is opts[0]
    assert option_named("медична", opts) is None  # a modifier alone names nothing
    # an option without wording names nothing by it, only by its forms
    bare = (Option("A", "", "target", ("лікар",)), Option("B", "водій", "distractor"))
    assert option_named("лікарем", bare) is bare[0]
    assert option_named("водієві", bare) is bare[1]


# --- normalise ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "doctor_first", "doctor_second"),
    [
        # a letter decides
        ("A", "target", "distractor"),
        ("B", "distractor", "target"),
        ("b)", "distractor", "target"),
        ("Відповідь: A", "target", "distractor"),
        ("Б", "distractor", "target"),
        ("А.", "target", "distractor"),
        # words naming the letter's own option agree with it
        ("A лікар", "target", INVALID),
        ("B. дизайнером", "distractor", INVALID),
        ("A. дизайнер", INVALID, "distractor"),
        ("B лікарем", INVALID, "target"),
        # words naming both options, or neither, leave the letter's choice
        ("A (лікар чи дизайнер)", "target", "distractor"),
        ("B - не знаю", "distractor", "target"),
        # no letter: the words must name one option
        ("лікарці", "target", "target"),
        ("Дизайнер", "distractor", "distractor"),
        ("лікар і дизайнер", INVALID, INVALID),
        ("нікого", INVALID, INVALID),
        ("В реченні йдеться про лікаря", "target", "target"),
        ("А лікар", "target", "target"),  # a Cyrillic letter before words: the words decide
        # two letters are no answer, in either order and with any joining word
        ("A або B", INVALID, INVALID),
        ("B або A", INVALID, INVALID),
        ("A or B", INVALID, INVALID),
        ("A та B", INVALID, INVALID),
        ("A і B", INVALID, INVALID),
        ("A, B", INVALID, INVALID),
        ("A/B", INVALID, INVALID),
        ("A чи (B)", INVALID, INVALID),
        ("A або Б", INVALID, INVALID),  # the second in Cyrillic
        ("A або В", INVALID, INVALID),  # В is ambiguous here: still a second letter
        ("A або A", "target", "distractor"),  # the same letter twice
        ("A, лікар", "target", INVALID),
        # the ambiguous В, failures
        ("В.", INVALID, INVALID),
        ("", INVALID, INVALID),
        (None, INVALID, INVALID),
    ],
)
def test_normalise_in_both_orders(
    answer: str | None, doctor_first: str, doctor_second: str
) -> None:
    assert normalise(answer, ORDERS["doctor_first"]) == doctor_first
    assert normalise(answer, ORDERS["doctor_second"]) == doctor_second


def test_three_options_give_cyrillic_v_its_place() -> None:
    opts = (
        Option("A", "лікар", "target"),
        Option("B", "дизайнер", "distractor"),
        Option("C", "водій", "other"),
    )
    assert normalise("В.", opts) == "other"
    assert normalise("С", opts) == "other"
    assert normalise("C водієм", opts) == "other"
    assert normalise("C лікар", opts) == INVALID


def test_cyrillic_labels_compare_by_value() -> None:
    # the letter read from the answer is a new string, equal to the label, not the same object
    opts = (Option("А", "лікар", "target"), Option("Б", "дизайнер", "distractor"))
    assert normalise("Б", opts) == "distractor"
    assert normalise("а) лікар", opts) == "target"
    assert normalise("Б. дизайнер", opts) == "distractor"
    assert normalise("Б лікар", opts) == INVALID
    assert normalise("А або А", opts) == "target"
    assert normalise("Б або А", opts) == INVALID


def test_another_language_reads_its_own_words() -> None:
    opts = (Option("A", "doctor", "target"), Option("B", "designer", "distractor"))
    assert normalise("The correct answer: B", opts, "en") == INVALID  # "The" comes first
    assert normalise("Correct answer: B", opts, "en") == "distractor"
    assert normalise("A and B", opts, "en") == INVALID
    assert normalise("A або B", opts, "en") == "target"  # not an English joining word
    assert normalise("the designer", opts, "en") == "distractor"


def test_options_need_not_be_listed_in_label_order() -> None:
    opts = (Option("B", "дизайнер", "distractor"), Option("A", "лікар", "target"))
    assert normalise("A", opts) == "target"
    assert normalise("B", opts) == "distractor"
    assert normalise("A лікар", opts) == "target"
