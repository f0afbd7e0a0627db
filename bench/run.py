"""`python -m bench`: run the benchmarks, each in its own process, and write RESULTS.md."""

from __future__ import annotations

import argparse
import importlib
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # `python bench/run.py`: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import machine
from bench.context import REPO_ROOT, Context
from bench.report import render_document, render_table, replace_section
from bench.results import BenchResult

BENCHMARKS: dict[str, str] = {
    "search": "bench.bench_search",
    "read": "bench.bench_read",
    "scan": "bench.bench_scan",
    "pages": "bench.bench_pages",
    "loop": "bench.bench_loop",
    "concurrency": "bench.bench_concurrency",
    "streaming": "bench.bench_streaming",
    "tokens": "bench.bench_tokens",
    "prefix": "bench.bench_prefix",
    "startup": "bench.bench_startup",
    "idle": "bench.bench_idle",
    "storage": "bench.bench_storage",
    "workers": "bench.bench_workers",
    "engines": "bench.bench_engines",
    "quotes": "bench.bench_quotes",
    "meaning": "bench.bench_meaning",
    "vectors": "bench.bench_vectors",
    "inline": "bench.bench_inline",
    "sources": "bench.bench_sources",
    "vision": "bench.bench_vision",
    "scale": "bench.bench_scale",
}
SIZED = frozenset({"search", "engines", "scale"})
OPT_IN = frozenset({"scale"})  # hours at its size: run only when named, never in a full run
DEFAULT_OUT = REPO_ROOT / "bench" / "RESULTS.md"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Run the benchmarks side by side with their references.",
        epilog="A full run of every benchmark writes bench/RESULTS.md; a subset or --quick "
        "prints its tables and writes only where --out says.",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(BENCHMARKS))
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes and fewer runs: one benchmark takes seconds to a few minutes, all "
        "of them over half an hour on a busy 2-core machine",
    )
    parser.add_argument("--out", type=Path, help="where to write the Markdown tables")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpora")
    parser.add_argument(
        "--workdir", type=Path, help="reuse this folder for corpora (kept afterwards)"
    )
    parser.add_argument(
        "--docs",
        type=int,
        help="search and engines: this many documents instead of the usual sizes "
        "(100000 is about 2 GB; give --workdir to keep it)",
    )
    return parser


def _command_for(name: str, quick: bool, docs: int | None = None) -> str:
    sized = f" --docs {docs}" if docs is not None and name in SIZED else ""
    return f"python -m bench {name}" + sized + (" --quick" if quick else "")


def run_variant(ctx: Context, name: str, variant: str, timeout_s: float) -> BenchResult:
    """One variant in a fresh interpreter; a crash or a timeout becomes a reported error."""
    module = BENCHMARKS[name]
    result_file = ctx.workdir / f"result-{name}-{variant}.json"
    result_file.unlink(missing_ok=True)
    command = [ctx.python, "-m", "bench.worker", module, variant]
    command += ["--workdir", str(ctx.workdir), "--result", str(result_file)]
    if ctx.quick:
        command.append("--quick")
    title = str(getattr(importlib.import_module(module), "TITLE", name))  # already imported
    try:
        subprocess.run(command, env=ctx.child_env(), timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return BenchResult(name, title, error=f"{variant}: gave up after {timeout_s:.0f} s")
    if not result_file.exists():
        return BenchResult(name, title, error=f"{variant}: the worker died without a result")
    return BenchResult.from_json(json.loads(result_file.read_text(encoding="utf-8")))


def run_benchmark(ctx: Context, name: str, docs: int | None = None) -> BenchResult:
    """Every variant of one benchmark, folded into one table (`docs`: the one corpus size
    for the benchmarks that take it)."""
    try:
        module = importlib.import_module(BENCHMARKS[name])
    except ImportError as exc:
        return BenchResult(name, name, error=f"not wired: the code it measures is missing ({exc})")
    variants: list[str] = module.variants(ctx.quick)
    if docs is not None and name in SIZED:
        variants = [str(docs)]
    timeout_s = 240.0 if ctx.quick else 1200.0 * max(1, (docs or 0) // 20_000)
    if hasattr(module, "timeout_s"):  # benchmarks that start whole deployments take longer
        timeout_s = float(module.timeout_s(ctx.quick))
    merged: BenchResult | None = None
    for variant in variants:
        print(f"[bench] {name} {variant} …", file=sys.stderr, flush=True)
        result = run_variant(ctx, name, variant, timeout_s)
        result.name = name
        if merged is None:
            merged = result
        else:
            merged.merge(result)
            merged.peak_rss_mb = max(merged.peak_rss_mb, result.peak_rss_mb)
    assert merged is not None
    return merged


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0 when every selected benchmark produced a table."""
    args = build_parser().parse_args(argv)
    names = args.names or [n for n in BENCHMARKS if n not in OPT_IN]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
        return 2
    out: Path | None = args.out
    if out is None and not args.names and not args.quick:
        out = DEFAULT_OUT
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="docs-bot-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    ctx = Context(workdir=workdir.resolve(), quick=args.quick)
    desc, date = machine.describe(), machine.now_utc()
    full = "python -m bench " + shlex.join(argv if argv is not None else sys.argv[1:])
    results: list[BenchResult] = []
    commands: dict[str, str] = {}
    started = time.perf_counter()
    try:
        for name in names:
            began = time.perf_counter()
            result = run_benchmark(ctx, name, args.docs)
            print(f"[bench] {name} took {time.perf_counter() - began:.0f} s", file=sys.stderr)
            commands[name] = _command_for(name, args.quick, args.docs)
            if args.docs is not None and name in SIZED:
                result.name = f"{name} at {args.docs:,} docs"
                commands[result.name] = commands[name]
            results.append(result)
            table = render_table(result, commands[name], desc, date)
            print(table, flush=True)
            if args.docs is not None and name in SIZED and out is None and not args.quick:
                DEFAULT_OUT.write_text(
                    replace_section(DEFAULT_OUT.read_text("utf-8"), table), "utf-8"
                )
                print(f"[bench] wrote its section of {DEFAULT_OUT}", file=sys.stderr)
    finally:
        if not (args.keep or args.workdir):
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"[bench] all done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if out is not None:
        version = machine.code_version(REPO_ROOT)
        document = render_document(results, commands, desc, date, full.strip(), version=version)
        out.write_text(document, "utf-8")
        print(f"[bench] wrote {out}", file=sys.stderr)
    return 0 if all(r.error is None for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
