"""Deterministic document corpora for the benchmarks, generated on the fly in a temp folder.

Russian and English prose (real word forms, so stemming matters), Cyrillic names in nested
folders, some PDF and DOCX, some cp1251. Every file depends only on the seed and its index, so
the same command always builds the same corpus, and the work spreads over all cores.

The PDF and office writers (reportlab, python-docx, python-pptx, xlsxwriter: about 20 MB)
load only where a corpus is written, which happens in a subprocess: a benchmark that measures
the bot's memory imports this module for `ensure` and would otherwise count them as the bot's.

`python -m bench.corpus DIR --documents N` builds one; the runner reuses it for every benchmark
of a run and writes a manifest beside it (outside the folder the bot sees).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import random
import subprocess
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import lexicon
from bench.prose import Vocabulary, paragraphs, text

SEED = 20261130
RARE_RU = frozenset({"шарлотка", "ёлка", "сахар", "яблоко", "яблочный", "испечь", "рецепт"})
RARE_EN = frozenset({"charlotte", "recipe", "apple", "sugar"})
CHARLOTTE = "Кухня/рецепт_шарлотки.txt"


@dataclass(frozen=True)
class Doc:
    """One generated file as the manifest records it."""

    path: str
    kind: str
    lang: str
    topic: str
    size: int


@functools.lru_cache(maxsize=4)
def vocabulary(lang: str) -> Vocabulary:
    """The shared word list of a language, rare topic words left out."""
    return Vocabulary.build(lang, RARE_RU if lang == "ru" else RARE_EN)


def _groups(lang: str) -> dict[str, list[str]]:
    table = lexicon.RU_NOUNS + "\n" + lexicon.RU_ADJECTIVES + "\n" + lexicon.RU_VERBS
    rows = lexicon.forms(table if lang == "ru" else lexicon.EN_WORDS)
    return {row[0]: row for row in rows}


def _topic(rng: random.Random, lang: str) -> tuple[str, tuple[str, ...]]:
    groups = _groups(lang)
    rare = RARE_RU if lang == "ru" else RARE_EN
    if rng.random() < 0.03:
        lemma = "шарлотка" if lang == "ru" else "charlotte"
        forms = [form for name in rare for form in groups[name]]
        return lemma, tuple(forms)
    lemma = rng.choice(sorted(set(groups) - rare))
    return lemma, tuple(groups[lemma])


def _folder(rng: random.Random, lang: str, kitchen: bool) -> str:
    if kitchen:
        top = "Кухня" if lang == "ru" else "Archive/Kitchen"
    else:
        top = rng.choice(lexicon.FOLDERS_RU if lang == "ru" else lexicon.FOLDERS_EN)
    parts = [top]
    if rng.random() < 0.7:
        parts.append(str(rng.randint(2019, 2025)))
        if rng.random() < 0.5:
            parts.append(rng.choice(lexicon.MONTHS))
    return "/".join(parts)


def _kind(rng: random.Random, lang: str) -> str:
    roll = rng.random()
    if roll < 0.03:
        return "pdf"
    if roll < 0.07:
        return "docx"
    if roll < 0.12 and lang == "ru":
        return "cp1251"
    return "md" if roll < 0.25 else "txt"


def _size(rng: random.Random, kind: str, scale: float) -> int:
    if kind == "pdf":
        return rng.randint(3_000, 14_000)
    if kind == "docx":
        return rng.randint(2_000, 20_000)
    return int(min(400_000, rng.lognormvariate(math.log(15_500), 0.8)) * scale)


def make_document(root: Path, index: int, seed: int = SEED, scale: float = 1.0) -> Doc:
    """Write document number `index` under `root` and describe it."""
    from bench import formats  # noqa: PLC0415 - the writers load only where files are written

    rng = random.Random(f"{seed}:{index}")
    lang = "ru" if rng.random() < 0.7 else "en"
    lemma, topic = _topic(rng, lang)
    kitchen = lemma in {"шарлотка", "charlotte"}
    kind = _kind(rng, lang)
    folder = _folder(rng, lang, kitchen)
    second = rng.choice(topic)
    ext = {"cp1251": "txt", "md": "md", "txt": "txt", "pdf": "pdf", "docx": "docx"}[kind]
    rel = f"{folder}/{lemma}_{second}_{index:05d}.{ext}"
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary(lang)
    size = _size(rng, kind, scale)
    body = paragraphs(rng, vocab, size // (2 if lang == "ru" else 1), topic)
    if kind == "pdf":
        formats.write_pdf(target, body)
    elif kind == "docx":
        formats.write_docx(target, f"{lemma} {second}", body, table=rng.random() < 0.5)
    else:
        data = "\n\n".join(body) + "\n"
        target.write_bytes(data.encode("cp1251" if kind == "cp1251" else "utf-8"))
    return Doc(rel, kind, lang, lemma, target.stat().st_size)


def _charlotte(root: Path) -> Doc:
    target = root / CHARLOTTE
    target.parent.mkdir(parents=True, exist_ok=True)
    intro = "Рецепт шарлотки с яблоками.\n\nСахар - 1 стакан.\nЯйца - 3 штуки.\nМука - 1 стакан.\n"
    tail = text(random.Random(SEED), vocabulary("ru"), 3_000)
    target.write_text(intro + "\n" + tail, encoding="utf-8")
    return Doc(CHARLOTTE, "txt", "ru", "шарлотка", target.stat().st_size)


def _batch(root: Path, indices: range, seed: int, scale: float) -> list[Doc]:
    return [make_document(root, i, seed, scale) for i in indices]


def generate(root: Path, documents: int, seed: int = SEED, scale: float = 1.0) -> list[Doc]:
    """Build the corpus in `root` (which should be empty) and write its manifest beside it."""
    root.mkdir(parents=True, exist_ok=True)
    docs = [_charlotte(root)]
    step = 250
    chunks = [range(i, min(i + step, documents)) for i in range(1, documents, step)]
    workers = max(1, min(os.cpu_count() or 1, len(chunks)))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_batch, root, chunk, seed, scale) for chunk in chunks]
        for future in futures:
            docs.extend(future.result())
    manifest = {
        "documents": len(docs),
        "seed": seed,
        "bytes": sum(d.size for d in docs),
        "files": [asdict(d) for d in docs],
    }
    manifest_path(root).write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    return docs


def manifest_path(root: Path) -> Path:
    """Where a corpus's manifest lives: beside it, invisible to the bot."""
    return root.parent / f"{root.name}.manifest.json"


def load(root: Path) -> list[Doc]:
    """The manifest of a built corpus."""
    data = json.loads(manifest_path(root).read_text(encoding="utf-8"))
    return [Doc(**d) for d in data["files"]]


def ensure(
    workdir: Path, documents: int, python: str, env: dict[str, str], scale: float = 1.0
) -> Path:
    """The corpus of `documents` files in this run's workdir, built in a subprocess if missing;
    `scale` shrinks (or grows) the texts of plain files, not the PDF and DOCX ones.

    A subprocess keeps the generator's memory out of the benchmark's peak figures.
    """
    root = workdir / (f"corpus-{documents}" + (f"-x{scale:g}" if scale != 1.0 else ""))
    if not manifest_path(root).exists():
        command = [python, "-m", "bench.corpus", str(root), "--documents", str(documents)]
        subprocess.run([*command, "--scale", str(scale)], env=env, check=True)
    return root


BIG_PDF = "Архив/годовой_отчет_300_страниц.pdf"
BIG_TEXT = "Архив/журнал_операций_50МБ.txt"
BIG_TEXT_BYTES = 50_000_000
BIG_PDF_PAGES = 300
BIG_DOCX = "Архив/положение_о_персонале.docx"
BIG_XLSX = "Архив/реестр_выплат_50_листов.xlsx"
BIG_PPTX = "Архив/презентация_100_слайдов.pptx"
BIG_EPUB = "Архив/справочник_300_глав.epub"
READ_SET = (BIG_PDF, BIG_TEXT, BIG_DOCX, BIG_XLSX, BIG_PPTX, BIG_EPUB)


def generate_read_set(root: Path, seed: int = SEED) -> list[Doc]:
    """Long documents for the read benchmark: a 300-page PDF, a 50 MB text file, a long docx,
    a 50-sheet workbook, a 100-slide deck and a 300-chapter EPUB book."""
    from bench import formats  # noqa: PLC0415 - the writers load only where files are written

    rng = random.Random(f"{seed}:read")
    vocab = vocabulary("ru")
    pdf = root / BIG_PDF
    pdf.parent.mkdir(parents=True, exist_ok=True)
    formats.write_pdf(pdf, paragraphs(rng, vocab, 1_500_000), pages=BIG_PDF_PAGES)
    big = root / BIG_TEXT
    with big.open("wb") as out:
        written = 0
        while written < BIG_TEXT_BYTES:
            chunk = text(rng, vocab, 1_000_000).encode("utf-8")
            chunk = chunk[: BIG_TEXT_BYTES - written].decode("utf-8", "ignore").encode("utf-8")
            out.write(chunk)
            written += len(chunk)
            if len(chunk) < 16:
                break
    docs = [
        Doc(BIG_PDF, "pdf", "ru", "отчет", pdf.stat().st_size),
        Doc(BIG_TEXT, "txt", "ru", "журнал", big.stat().st_size),
        *_office_read_set(root, seed),
    ]
    manifest = {"documents": len(docs), "seed": seed, "files": [asdict(d) for d in docs]}
    manifest_path(root).write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    return docs


def _office_read_set(root: Path, seed: int) -> list[Doc]:
    """The office documents of the read set, from a random stream of their own (the PDF and
    the text file stay the same bytes as before they were added)."""
    from bench import formats, office  # noqa: PLC0415 - the writers load only where written

    rng = random.Random(f"{seed}:read-office")
    vocab = vocabulary("ru")
    formats.write_docx(
        root / BIG_DOCX, "Положение о персонале", paragraphs(rng, vocab, 600_000), table=True
    )
    office.write_xlsx(root / BIG_XLSX, rng, vocab, sheets=50, rows=200)
    office.write_pptx(root / BIG_PPTX, rng, vocab, slides=100)
    office.write_epub(root / BIG_EPUB, rng, vocab, chapters=300)
    kinds = {BIG_DOCX: "docx", BIG_XLSX: "xlsx", BIG_PPTX: "pptx", BIG_EPUB: "epub"}
    return [
        Doc(rel, kind, "ru", "офис", (root / rel).stat().st_size) for rel, kind in kinds.items()
    ]


def ensure_read_set(workdir: Path, python: str, env: dict[str, str]) -> Path:
    """The read benchmark's folder, built in a subprocess if missing or incomplete."""
    root = workdir / "read-set"
    if not manifest_path(root).exists() or not all((root / rel).exists() for rel in READ_SET):
        command = [python, "-m", "bench.corpus", str(root), "--read-set"]
        subprocess.run(command, env=env, check=True)
    return root


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.corpus DIR --documents N [--seed S]` (or `--read-set`)."""
    parser = argparse.ArgumentParser(prog="python -m bench.corpus")
    parser.add_argument("root", type=Path)
    parser.add_argument("--documents", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--scale", type=float, default=1.0, help="plain texts' size factor")
    parser.add_argument("--read-set", action="store_true", help="the long documents")
    args = parser.parse_args(argv)
    if args.read_set:
        docs = generate_read_set(args.root, args.seed)
    else:
        docs = generate(args.root, args.documents, args.seed, args.scale)
    total = sum(d.size for d in docs)
    print(f"{len(docs)} documents, {total / 1e6:.1f} MB in {args.root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
