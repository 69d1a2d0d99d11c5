"""Writes python_analysis.json: how Python 3 (str.lower, re) and
scikit-learn's 20 Newsgroups cleaning treat tricky strings, for
text/analyze_test.go. Needs only the standard library; the three strip
functions are copied from scikit-learn 1.2.1 (sklearn/datasets/_twenty_newsgroups.py).

    python3 gen_python.py > python_analysis.json
"""
import json
import random
import re
import sys
import unicodedata

_QUOTE_RE = re.compile(
    r"(writes in|writes:|wrote:|says:|said:" r"|^In article|^Quoted from|^\||^>)"
)


def strip_newsgroup_header(text):
    _before, _blankline, after = text.partition("\n\n")
    return after


def strip_newsgroup_quoting(text):
    good_lines = [line for line in text.split("\n") if not _QUOTE_RE.search(line)]
    return "\n".join(good_lines)


def strip_newsgroup_footer(text):
    lines = text.strip().split("\n")
    for line_num in range(len(lines) - 1, -1, -1):
        line = lines[line_num]
        if line.strip().strip("-") == "":
            break
    if line_num > 0:
        return "\n".join(lines[:line_num])
    else:
        return text


TOKEN = re.compile(r"(?u)\b\w\w+\b")

fixed = [
    "", "a", "ab", "a b", "ab_cd", "__", "_a", "in¹ x²y ½½",
    "café cafe\u0301 naïve Ørsted ÆSIR straße",
    "ΣΑΣ ΟΔΟΣ Σ aΣ aΣb aΣ. Σa 'Σ' ΑΣ\u0301 Α.Σ",
    "İstanbul DİYARBAKIR ǅemal ǈ ǋ ﬁnance ﬀ",
    "x1 1x 12 ٣٤ ۵۶ १२ ① Ⅻ ⅻ ¼ 𝟘𝟙",
    "tab\tsep\u00a0nbsp\u2003em\u3000ideo\u200bzw\u2060wj",
    "日本語のテキスト 中文 한국어 ไทย",
    "e-mail re: [fwd] <http://x.org/a_b> don't won’t",
    "From: a@b\nSubject: x\n\nBody line\nIn article <1@x> y writes:\n> quoted\n| pipe\nkept says: no\n\n-- \nsig\n",
    "no blank line header only",
    "Header\n\nbody\n--\nfoot",
    "Header\n\n--\nonly footer",
    "Header\n\n\x1c\x1dtext\x1e\x1f\n  -- \n",
    "Header\n\nline1\n- -\nline2\n",
    "Header\n\nQuoted from x\nIn articles\n>a\n a>b\n",
    "Header\n\n  \n\n   \n",
]

rng = random.Random(1)
pool = [chr(c) for c in list(range(0x20, 0x250)) + list(range(0x370, 0x400))
        + list(range(0x2000, 0x2070)) + list(range(0x660, 0x670))
        + [0x1c, 0x1d, 0x85, 0xa0, 0x130, 0x3a3, 0x301, 0x345, 0x2160, 0x2170, 0x1f130, 0x10400]]
pool = [c for c in pool if unicodedata.category(c) != "Cn"]
pool += ["\n", "\n", " ", " ", "-", ">", "|", "\n\n", "Σ", "İ"]
rand = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 60))) for _ in range(400)]

out = []
for s in fixed + rand:
    clean = re.sub(r"\d+", "", strip_newsgroup_quoting(strip_newsgroup_footer(strip_newsgroup_header(s))))
    out.append({
        "in": s,
        "lower": s.lower(),
        "tokens": TOKEN.findall(s.lower()),
        "clean": clean,
        "clean_tokens": TOKEN.findall(clean.lower()),
    })
json.dump({"python": sys.version.split()[0], "unicode": unicodedata.unidata_version, "cases": out},
          sys.stdout, ensure_ascii=True, indent=0)
