"""A sanity check of compose.yaml for machines without `docker compose` (no schema at hand).

It loads the YAML and checks what a mistake here would break: the services and profiles the
README names, the bot's build, env_file and volumes, the folders the Dockerfile declares,
that every named volume and dependency exists, that each `${...}` is well formed, and that
the local Bot API server's working directory is shared with the bot at the same path.
Prints one line per problem and exits 1 when there is any.

Usage: python3 .ci/compose_check.py [compose.yaml [Dockerfile]] (needs PyYAML).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

TOP_LEVEL = {"name", "services", "volumes", "networks", "configs", "secrets"}
PROFILES = {"postgres": "postgres", "local-api": "telegram-bot-api"}
LOCAL_API_DIR = "/var/lib/telegram-bot-api"
_OPERATORS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:(?::?[-+?]).*)?$", re.DOTALL)


def _closing(text: str, start: int) -> int:
    """The index of the `}` that closes the `${` at `start` (nested ones included), or -1."""
    depth, index = 0, start
    while index < len(text):
        if text.startswith("${", index):
            depth += 1
            index += 2
            continue
        if text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def interpolations(text: str) -> tuple[list[str], list[str]]:
    """The `${...}` expressions in `text` (nested ones inside theirs) and the problems found."""
    found: list[str] = []
    problems: list[str] = []
    index = 0
    while (start := text.find("${", index)) != -1:
        if start > 0 and text[start - 1] == "$":  # `$${` is a literal dollar
            index = start + 2
            continue
        end = _closing(text, start)
        if end == -1:
            problems.append(f"unclosed ${{ in {text!r}")
            break
        body = text[start + 2 : end]
        if not _OPERATORS.match(body):
            problems.append(f"not a variable with a known operator: ${{{body}}}")
        found.append(body)
        inner_found, inner_problems = interpolations(body)
        found += inner_found
        problems += inner_problems
        index = end + 1
    return found, problems


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


def _mounts(service: dict[str, Any]) -> dict[str, str]:
    """Target path -> source, from the short `source:target[:mode]` entries.

    A `${...}` source may hold colons of its own.
    """
    mounts = {}
    for entry in map(str, service.get("volumes") or []):
        if entry.startswith("${") and (end := _closing(entry, 0)) != -1:
            source, rest = entry[: end + 1], entry[end + 2 :]
        else:
            source, _, rest = entry.partition(":")
        mounts[rest.partition(":")[0]] = source
    return mounts


def _dockerfile_env(dockerfile: str, name: str) -> str | None:
    match = re.search(rf"\b{name}=(\S+)", dockerfile)
    return match.group(1) if match else None


def _bot_problems(bot: dict[str, Any], dockerfile: str) -> list[str]:
    problems = []
    if bot.get("build") != ".":
        problems.append("the bot is not built from the repository root (build: .)")
    if ".env" not in _strings(bot.get("env_file")):
        problems.append("the bot does not read .env (env_file)")
    environment = bot.get("environment") or {}
    mounts = _mounts(bot)
    declared = dockerfile.split("VOLUME", 1)[-1]
    for name in ("SANDBOX_DIR", "DATA_DIR"):
        path = environment.get(name)
        if path is None or path != _dockerfile_env(dockerfile, name):
            problems.append(f"{name} differs from the Dockerfile's ({path!r})")
        elif path not in mounts:
            problems.append(f"{name} ({path}) is not a volume of the bot")
        elif f'"{path}"' not in declared:
            problems.append(f"the Dockerfile does not declare {path} a VOLUME")
    if "DATABASE_URL" not in environment:
        problems.append("DATABASE_URL is not wired into the bot")
    return problems


def _service_problems(services: dict[str, Any], volumes: set[str]) -> list[str]:
    problems = []
    for profile, name in PROFILES.items():
        service = services.get(name)
        if not isinstance(service, dict):
            problems.append(f"no `{name}` service for the {profile} profile")
        elif service.get("profiles") != [profile]:
            problems.append(f"`{name}` is not behind the {profile} profile alone")
    for name, service in services.items():
        if name != "bot" and not service.get("profiles"):
            problems.append(f"`{name}` starts without a profile")
        if "image" not in service and "build" not in service:
            problems.append(f"`{name}` has neither image nor build")
        for source in _mounts(service).values():
            if not source.startswith((".", "/", "$")) and source not in volumes:
                problems.append(f"`{name}` mounts the undeclared volume {source}")
        for dependency in service.get("depends_on") or {}:
            if dependency not in services:
                problems.append(f"`{name}` depends on the missing service {dependency}")
    shared = _mounts(services.get("telegram-bot-api") or {}).get(LOCAL_API_DIR)
    if shared is None or shared != _mounts(services.get("bot") or {}).get(LOCAL_API_DIR):
        problems.append(f"the bot does not share the local Bot API server's {LOCAL_API_DIR}")
    return problems


def check(compose: dict[str, Any], dockerfile: str) -> list[str]:
    """Every problem found, one sentence each."""
    problems = [f"unknown top-level key: {key}" for key in compose if key not in TOP_LEVEL]
    services: dict[str, Any] = compose.get("services") or {}
    bot = services.get("bot")
    if not isinstance(bot, dict):
        return [*problems, "no `bot` service"]
    problems += _bot_problems(bot, dockerfile)
    problems += _service_problems(services, set((compose.get("volumes") or {}).keys()))
    for text in _strings(compose):
        problems += interpolations(text)[1]
    return problems


def main(argv: list[str]) -> int:
    """Check the files named (compose.yaml and Dockerfile by default); 0 when all is well."""
    compose_path = Path(argv[0] if argv else "compose.yaml")
    dockerfile_path = Path(argv[1] if len(argv) > 1 else compose_path.parent / "Dockerfile")
    compose = yaml.safe_load(compose_path.read_text(encoding="utf-8"))
    problems = check(compose, dockerfile_path.read_text(encoding="utf-8"))
    for problem in problems:
        print(f"{compose_path}: {problem}")
    if not problems:
        print(f"{compose_path}: looks sound ({len(compose['services'])} services)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
