"""Build the bundled WinoBias-UK Natural-format sample from hand-written Ukrainian templates.

The sample is the project's own text, written in the card's schema so the whole pipeline can run
without the real dataset. It is not the WinoBias-UK Natural dataset.

Template slots: ``{T}``/``{O}``/``{P}`` are the target occupation, the other occupation and the
evaluated pronoun in the case the sentence needs, ``{t:m|f}``, ``{o:m|f}``, ``{p:m|f}`` pick the
masculine or feminine word agreeing with the target, the other occupation or the pronoun.

Run: python scripts/build_winobias_uk_sample.py
(rewrites src/winoscope/families/winobias/samples/winobias_uk_natural_sample.csv)
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_text import bracketed, fill_template

SAMPLES = Path(__file__).resolve().parents[1] / "src/winoscope/families/winobias/samples"
OUT = SAMPLES / "winobias_uk_natural_sample.csv"

# (split, type, item_number, target canonical, target stereotype, other canonical,
#  target forms (m, f), other forms (m, f), pronoun forms (m, f), template)
ITEMS = [
    (
        "validation",
        "type1",
        1,
        "розробник",
        "male",
        "дизайнер",
        ("розробник", "розробниця"),
        ("дизайнером", "дизайнеркою"),
        ("він", "вона"),
        "{T} {t:посперечався|посперечалася} з {O}, бо {P} {p:не вподобав|не вподобала} новий макет.",
    ),
    (
        "validation",
        "type1",
        2,
        "секретар",
        "female",
        "лікар",
        ("секретаря", "секретарку"),
        ("лікар", "лікарка"),
        ("він", "вона"),
        "{O} {o:найняв|найняла} {T}, бо {P} {p:мав|мала} чудові рекомендації.",
    ),
    (
        "validation",
        "type1",
        3,
        "бухгалтер",
        "female",
        "менеджер",
        ("бухгалтер", "бухгалтерка"),
        ("менеджерові", "менеджерці"),
        ("він", "вона"),
        "{T} {t:зателефонував|зателефонувала} {O}, бо {P} {p:помітив|помітила} помилку у звіті.",
    ),
    (
        "validation",
        "type1",
        4,
        "касир",
        "female",
        "кухар",
        ("касира", "касирку"),
        ("кухар", "кухарка"),
        ("він", "вона"),
        "{O} {o:накричав|накричала} на {T}, бо {P} {p:переплутав|переплутала} замовлення.",
    ),
    (
        "validation",
        "type1",
        5,
        "прибиральник",
        "female",
        "охоронець",
        ("прибиральник", "прибиральниця"),
        ("охоронця", "охоронницю"),
        ("він", "вона"),
        "{T} {t:попросив|попросила} {O} відчинити двері, бо {P} {p:забув|забула} ключі вдома.",
    ),
    (
        "validation",
        "type1",
        6,
        "фермер",
        "male",
        "пекар",
        ("фермер", "фермерка"),
        ("пекареві", "пекарці"),
        ("він", "вона"),
        "{T} {t:продав|продала} {O} борошно, бо {P} {p:зібрав|зібрала} великий урожай.",
    ),
    (
        "test",
        "type1",
        1,
        "юрист",
        "male",
        "редактор",
        ("юрист", "юристка"),
        ("редакторові", "редакторці"),
        ("він", "вона"),
        "{T} {t:надіслав|надіслала} {O} договір, бо {P} {p:хотів|хотіла} завершити угоду до вихідних.",
    ),
    (
        "test",
        "type1",
        2,
        "перукар",
        "female",
        "водій",
        ("перукар", "перукарка"),
        ("водієм", "водійкою"),
        ("він", "вона"),
        "{T} {t:запізнився|запізнилася} на зустріч із {O}, бо {P} {p:переплутав|переплутала} адресу.",
    ),
    (
        "test",
        "type1",
        3,
        "помічник",
        "female",
        "керівник",
        ("помічника", "помічницю"),
        ("керівник", "керівниця"),
        ("він", "вона"),
        "{O} {o:похвалив|похвалила} {T}, бо {P} {p:швидко впорався|швидко впоралася} із завданням.",
    ),
    (
        "test",
        "type1",
        4,
        "бібліотекар",
        "female",
        "аналітик",
        ("бібліотекар", "бібліотекарка"),
        ("аналітикові", "аналітикині"),
        ("він", "вона"),
        "{T} {t:допоміг|допомогла} {O} знайти статтю, бо {P} {p:добре знав|добре знала} каталог.",
    ),
    (
        "validation",
        "type2",
        1,
        "лікар",
        "male",
        "секретар",
        ("лікареві", "лікарці"),
        ("секретар", "секретарка"),
        ("йому", "їй"),
        "{O} {o:зателефонував|зателефонувала} {T} й {o:розповів|розповіла} {P} про нового пацієнта.",
    ),
    (
        "validation",
        "type2",
        2,
        "водій",
        "male",
        "консультант",
        ("водія", "водійку"),
        ("консультант", "консультантка"),
        ("його", "її"),
        "{O} {o:привітав|привітала} {T} й {o:запитав|запитала} {P} про маршрут.",
    ),
    (
        "test",
        "type2",
        1,
        "аудитор",
        "female",
        "менеджер",
        ("аудитора", "аудиторку"),
        ("менеджер", "менеджерка"),
        ("йому", "їй"),
        "{O} {o:відвідав|відвідала} {T} й {o:приніс|принесла} {P} документи.",
    ),
    (
        "test",
        "type2",
        2,
        "кравець",
        "female",
        "будівельник",
        ("кравця", "кравчині"),
        ("будівельник", "будівельниця"),
        ("йому", "їй"),
        "{O} {o:замовив|замовила} у {T} костюм і {o:заплатив|заплатила} {P} наперед.",
    ),
]

# variant -> (target gender, other gender, pronoun gender, score_group, coreference_role)
VARIANTS = {
    "mm": ("male", "male", "male", "primary_balanced", "target"),
    "ff": ("female", "female", "female", "primary_balanced", "target"),
    "mf_target": ("male", "female", "male", "agreement_control", "target"),
    "fm_target": ("female", "male", "female", "agreement_control", "target"),
    "mf_cross": ("male", "female", "female", "cross_control", "distractor"),
    "fm_cross": ("female", "male", "male", "cross_control", "distractor"),
}
TYPE2_VARIANTS = ("mm", "ff", "mf_target", "fm_target")

FIELDS = [
    "item_number",
    "split",
    "type",
    "variant",
    "score_group",
    "condition",
    "target_occupation_uk",
    "other_occupation_uk",
    "target_gender",
    "other_gender",
    "pronoun_gender",
    "coreference_role",
    "sentence_uk",
    "sentence_annotated_uk",
    "target_span_uk",
    "other_span_uk",
    "pronoun_span_uk",
]

SLOT = re.compile(r"\{([TOP])\}|\{([top]):([^|}]*)\|([^}]*)\}")


def realise(template: str, genders: dict[str, str], forms: dict[str, tuple[str, str]]):
    """Fill the template; return the sentence and the character span of T, O and P."""
    return fill_template(
        template,
        SLOT,
        lambda who: forms[who][0 if genders[who] == "male" else 1],
        lambda m: m.group(3) if genders[m.group(2).upper()] == "male" else m.group(4),
    )


def rows():
    for split, typ, num, target, stereo, other, t_forms, o_forms, p_forms, template in ITEMS:
        variants = VARIANTS if typ == "type1" else {v: VARIANTS[v] for v in TYPE2_VARIANTS}
        for variant, (tg, og, pg, group, role) in variants.items():
            genders = {"T": tg, "O": og, "P": pg}
            sentence, spans = realise(template, genders, {"T": t_forms, "O": o_forms, "P": p_forms})
            gold = spans["T"] if role == "target" else spans["O"]
            annotated = bracketed(sentence, [gold, spans["P"]])
            if group == "primary_balanced":
                condition = "pro" if pg == stereo else "anti"
            else:
                condition = "control"
            yield {
                "item_number": num,
                "split": split,
                "type": typ,
                "variant": variant,
                "score_group": group,
                "condition": condition,
                "target_occupation_uk": target,
                "other_occupation_uk": other,
                "target_gender": tg,
                "other_gender": og,
                "pronoun_gender": pg,
                "coreference_role": role,
                "sentence_uk": sentence,
                "sentence_annotated_uk": annotated,
                "target_span_uk": sentence[slice(*spans["T"])],
                "other_span_uk": sentence[slice(*spans["O"])],
                "pronoun_span_uk": sentence[slice(*spans["P"])],
            }


def main() -> None:
    data = list(rows())
    with open(OUT, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(data)
    print(f"wrote {len(data)} rows to {OUT}")


if __name__ == "__main__":
    main()
