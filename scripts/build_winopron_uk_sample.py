"""Build the bundled WinoPron-UK-format sample from hand-written Ukrainian templates.

The sample is the project's own text, written in the WinoPron-UK card's schema (the three
configurations ``double``, ``single`` and ``forced_choice``) so the whole pipeline can run without
the real dataset. It is not the WinoPron-UK dataset.

Each pair has an occupation-reference and a participant-reference template, each realised in the
masculine, feminine and plural forms (index 0, 1, 2 of every form tuple). In Ukrainian both
entities take the pronoun's gender and number, so agreement alone never tells the referent.
Template slots: ``{O}``/``{P}`` are the occupation and the participant in the case the sentence
needs, ``{R}`` is the evaluated pronoun, ``{m|f|pl}`` picks the word agreeing with the set.

Run: python scripts/build_winopron_uk_sample.py
(rewrites src/winoscope/families/winopron/samples/winopron_uk_sample_*.csv)
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_text import bracketed, fill_template

DATA = Path(__file__).resolve().parents[1] / "src/winoscope/families/winopron/samples"
SETS = ("male", "female", "plural")
ORDERS = ("occupation_first", "participant_first")

Forms = tuple[str, str, str]

# One pair: canonical occupation, pronoun_type, nominative forms of occupation and participant
# (the answer options), then for each (context, gold_role) a template with its form tuples.
PAIRS: list[dict] = [
    {
        "occupation": "технік",
        "pronoun_type": "nominative",
        "occ_nom": ("технік", "технікиня", "техніки"),
        "part_nom": ("клієнт", "клієнтка", "клієнти"),
        ("double", "occupation"): (
            "{O} {повідомив|повідомила|повідомили} {P}, що {R} {уже|вже|вже} {завершив|завершила|завершили} ремонт.",
            ("технік", "технікиня", "техніки"),
            ("клієнтові", "клієнтці", "клієнтам"),
            ("він", "вона", "вони"),
        ),
        ("double", "participant"): (
            "{O} {повідомив|повідомила|повідомили} {P}, що {R} {може|може|можуть} заплатити готівкою.",
            ("технік", "технікиня", "техніки"),
            ("клієнтові", "клієнтці", "клієнтам"),
            ("він", "вона", "вони"),
        ),
        ("single", "occupation"): (
            "{O} {сказав|сказала|сказали}, що {R} {уже|вже|вже} {завершив|завершила|завершили} ремонт.",
            ("технік", "технікиня", "техніки"),
            None,
            ("він", "вона", "вони"),
        ),
        ("single", "participant"): (
            "{P} {дізнався|дізналася|дізналися}, що {R} {може|може|можуть} заплатити готівкою.",
            None,
            ("клієнт", "клієнтка", "клієнти"),
            ("він", "вона", "вони"),
        ),
    },
    {
        "occupation": "лікар",
        "pronoun_type": "nominative",
        "occ_nom": ("лікар", "лікарка", "лікарі"),
        "part_nom": ("пацієнт", "пацієнтка", "пацієнти"),
        ("double", "occupation"): (
            "{O} {зателефонував|зателефонувала|зателефонували} {P}, бо {R} {мав|мала|мали} вільний час для консультації.",
            ("лікар", "лікарка", "лікарі"),
            ("пацієнтові", "пацієнтці", "пацієнтам"),
            ("він", "вона", "вони"),
        ),
        ("double", "participant"): (
            "{O} {зателефонував|зателефонувала|зателефонували} {P}, бо {R} {просив|просила|просили} про консультацію телефоном.",
            ("лікар", "лікарка", "лікарі"),
            ("пацієнтові", "пацієнтці", "пацієнтам"),
            ("він", "вона", "вони"),
        ),
        ("single", "occupation"): (
            "{O} {зателефонував|зателефонувала|зателефонували}, бо {R} {мав|мала|мали} вільний час для консультації.",
            ("лікар", "лікарка", "лікарі"),
            None,
            ("він", "вона", "вони"),
        ),
        ("single", "participant"): (
            "{P} {чекав|чекала|чекали} на дзвінок, бо {R} {просив|просила|просили} про консультацію телефоном.",
            None,
            ("пацієнт", "пацієнтка", "пацієнти"),
            ("він", "вона", "вони"),
        ),
    },
    {
        "occupation": "вчитель",
        "pronoun_type": "oblique",
        "occ_nom": ("вчитель", "вчителька", "вчителі"),
        "part_nom": ("учень", "учениця", "учні"),
        ("double", "occupation"): (
            "{O} {попросив|попросила|попросили} {P} прийти раніше, бо в {R} був вільний час перед уроком.",
            ("вчитель", "вчителька", "вчителі"),
            ("учня", "ученицю", "учнів"),
            ("нього", "неї", "них"),
        ),
        ("double", "participant"): (
            "{O} {попросив|попросила|попросили} {P} прийти раніше, бо {R} треба було переписати контрольну.",
            ("вчитель", "вчителька", "вчителі"),
            ("учня", "ученицю", "учнів"),
            ("йому", "їй", "їм"),
        ),
        ("single", "occupation"): (
            "{O} {прийшов|прийшла|прийшли} раніше, бо в {R} був вільний час перед уроком.",
            ("вчитель", "вчителька", "вчителі"),
            None,
            ("нього", "неї", "них"),
        ),
        ("single", "participant"): (
            "{P} {прийшов|прийшла|прийшли} раніше, бо {R} треба було переписати контрольну.",
            None,
            ("учень", "учениця", "учні"),
            ("йому", "їй", "їм"),
        ),
    },
    {
        "occupation": "бухгалтер",
        "pronoun_type": "oblique",
        "occ_nom": ("бухгалтер", "бухгалтерка", "бухгалтери"),
        "part_nom": ("відвідувач", "відвідувачка", "відвідувачі"),
        ("double", "occupation"): (
            "{O} {попросив|попросила|попросили} {P} зачекати, бо {R} ще треба було підготувати документи.",
            ("бухгалтер", "бухгалтерка", "бухгалтери"),
            ("відвідувача", "відвідувачку", "відвідувачів"),
            ("йому", "їй", "їм"),
        ),
        ("double", "participant"): (
            "{O} {попросив|попросила|попросили} {P} принести паспорт, щоб {R} видали довідку.",
            ("бухгалтер", "бухгалтерка", "бухгалтери"),
            ("відвідувача", "відвідувачку", "відвідувачів"),
            ("йому", "їй", "їм"),
        ),
        ("single", "occupation"): (
            "{O} {попросив|попросила|попросили} зачекати, бо {R} ще треба було підготувати документи.",
            ("бухгалтер", "бухгалтерка", "бухгалтери"),
            None,
            ("йому", "їй", "їм"),
        ),
        ("single", "participant"): (
            "{P} {приніс|принесла|принесли} паспорт, щоб {R} видали довідку.",
            None,
            ("відвідувач", "відвідувачка", "відвідувачі"),
            ("йому", "їй", "їм"),
        ),
    },
    {
        "occupation": "кухар",
        "pronoun_type": "possessive",
        "occ_nom": ("кухар", "кухарка", "кухарі"),
        "part_nom": ("гість", "гостя", "гості"),
        ("double", "occupation"): (
            "{P} {похвалив|похвалила|похвалили} {O}, бо {R} страви були найкращими в місті.",
            ("кухаря", "кухарку", "кухарів"),
            ("гість", "гостя", "гості"),
            ("його", "її", "їхні"),
        ),
        ("double", "participant"): (
            "{P} {подякував|подякувала|подякували} {O}, бо {R} замовлення приготували дуже швидко.",
            ("кухареві", "кухарці", "кухарям"),
            ("гість", "гостя", "гості"),
            ("його", "її", "їхнє"),
        ),
        ("single", "occupation"): (
            "Усі хвалили {O}, бо {R} страви були найкращими в місті.",
            ("кухаря", "кухарку", "кухарів"),
            None,
            ("його", "її", "їхні"),
        ),
        ("single", "participant"): (
            "{P} {був задоволений|була задоволена|були задоволені}, бо {R} замовлення приготували дуже швидко.",
            None,
            ("гість", "гостя", "гості"),
            ("його", "її", "їхнє"),
        ),
    },
    {
        "occupation": "фармацевт",
        "pronoun_type": "possessive",
        "occ_nom": ("фармацевт", "фармацевтка", "фармацевти"),
        "part_nom": ("покупець", "покупчиня", "покупці"),
        ("double", "occupation"): (
            "{P} {довіряв|довіряла|довіряли} {O}, бо {R} поради завжди допомагали.",
            ("фармацевтові", "фармацевтці", "фармацевтам"),
            ("покупець", "покупчиня", "покупці"),
            ("його", "її", "їхні"),
        ),
        ("double", "participant"): (
            "{P} {звернувся|звернулася|звернулися} до {O}, бо {R} рецепт загубився.",
            ("фармацевта", "фармацевтки", "фармацевтів"),
            ("покупець", "покупчиня", "покупці"),
            ("його", "її", "їхній"),
        ),
        ("single", "occupation"): (
            "Усі довіряли {O}, бо {R} поради завжди допомагали.",
            ("фармацевтові", "фармацевтці", "фармацевтам"),
            None,
            ("його", "її", "їхні"),
        ),
        ("single", "participant"): (
            "{P} {хвилювався|хвилювалася|хвилювалися}, бо {R} рецепт загубився.",
            None,
            ("покупець", "покупчиня", "покупці"),
            ("його", "її", "їхній"),
        ),
    },
]

SENTENCE_FIELDS = [
    "row_id",
    "pair_id",
    "template_number",
    "occupation_group_uk",
    "occupation_uk",
    "participant_uk",
    "gold_role",
    "pronoun_type",
    "pronoun_set",
    "pronoun_uk",
    "sentence_uk",
    "sentence_annotated_uk",
    "gold_span_uk",
]
PROMPT_FIELDS = [
    "prompt_id",
    "row_id",
    "pair_id",
    "context",
    "pronoun_type",
    "pronoun_set",
    "option_order",
    "option_a_role",
    "option_b_role",
    "gold_role",
    "gold_option",
    "prompt_uk",
]
PROMPT = (
    "Прочитайте речення і визначте, кого стосується займенник «{pronoun}».\n"
    "Речення: {sentence}\n"
    "A. {option_a}\n"
    "B. {option_b}\n"
    "Відповідайте лише літерою A або B."
)

SLOT = re.compile(r"\{([OPR])\}|\{([^{}|]*)\|([^{}|]*)\|([^{}|]*)\}")


def realise(template: str, k: int, forms: dict[str, Forms | None]):
    """Fill the template for set index ``k``; return the sentence and the spans of O, P and R."""

    def word(who: str) -> str:
        return forms[who][k]  # type: ignore[index]

    return fill_template(template, SLOT, word, lambda m: m.group(2 + k))


def sentence_rows(context: str):
    for number, pair in enumerate(PAIRS, start=1):
        pair_id = f"p{number:03d}"
        for role in ("occupation", "participant"):
            template, occ, part, pron = pair[(context, role)]
            template_number = 2 * number - (1 if role == "occupation" else 0)
            for k, pset in enumerate(SETS):
                sentence, spans = realise(template, k, {"O": occ, "P": part, "R": pron})
                gold = spans["O" if role == "occupation" else "P"]
                annotated = bracketed(sentence, [gold, spans["R"]])
                yield {
                    "row_id": f"{context}-{number:03d}-{role}-{pset}",
                    "pair_id": pair_id,
                    "template_number": template_number,
                    "occupation_group_uk": pair["occupation"],
                    "occupation_uk": pair["occ_nom"][k],
                    "participant_uk": pair["part_nom"][k],
                    "gold_role": role,
                    "pronoun_type": pair["pronoun_type"],
                    "pronoun_set": pset,
                    "pronoun_uk": sentence[slice(*spans["R"])],
                    "sentence_uk": sentence,
                    "sentence_annotated_uk": annotated,
                    "gold_span_uk": sentence[slice(*gold)],
                }


def prompt_rows(sentences: dict[str, list[dict]]):
    for context in ("double", "single"):
        for row in sentences[context]:
            names = {"occupation": row["occupation_uk"], "participant": row["participant_uk"]}
            for order in ORDERS:
                a_role = order.removesuffix("_first")
                b_role = "participant" if a_role == "occupation" else "occupation"
                yield {
                    "prompt_id": f"{row['row_id']}-{order}",
                    "row_id": row["row_id"],
                    "pair_id": row["pair_id"],
                    "context": context,
                    "pronoun_type": row["pronoun_type"],
                    "pronoun_set": row["pronoun_set"],
                    "option_order": order,
                    "option_a_role": a_role,
                    "option_b_role": b_role,
                    "gold_role": row["gold_role"],
                    "gold_option": "A" if row["gold_role"] == a_role else "B",
                    "prompt_uk": PROMPT.format(
                        pronoun=row["pronoun_uk"],
                        sentence=row["sentence_uk"],
                        option_a=names[a_role],
                        option_b=names[b_role],
                    ),
                }


def write(path: Path, fields: list[str], rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {path}")


def main() -> None:
    sentences = {c: list(sentence_rows(c)) for c in ("double", "single")}
    write(DATA / "winopron_uk_sample_double.csv", SENTENCE_FIELDS, sentences["double"])
    write(DATA / "winopron_uk_sample_single.csv", SENTENCE_FIELDS, sentences["single"])
    write(
        DATA / "winopron_uk_sample_forced_choice.csv", PROMPT_FIELDS, list(prompt_rows(sentences))
    )


if __name__ == "__main__":
    main()
