"""Models for `python -m bot check`'s round trip with a tool, as `FakeLLM.responder`s.

`calls_tools` plays a model that calls the tool it is offered and answers once the result
comes back; the others play the ways a local server falls short. A request without tools is
left to the fake's queue (None), so the rest of `check` is scripted as before.
"""

from __future__ import annotations

from typing import Any

from tests.fakes.fake_llm import Reply, error_reply, text_reply, tool_calls_reply

ANSWER = "It is 12:00 UTC."


def _offered(request: dict[str, Any]) -> str | None:
    """The name of the first tool the request offers, None without tools."""
    tools = request.get("tools") or []
    return str(tools[0]["function"]["name"]) if tools else None


def _answered(request: dict[str, Any]) -> bool:
    return bool(request.get("messages")) and request["messages"][-1].get("role") == "tool"


async def calls_tools(request: dict[str, Any]) -> Reply | None:
    """Calls the tool offered, then answers from its result."""
    name = _offered(request)
    if name is None:
        return None
    if _answered(request):
        return text_reply(ANSWER)
    return tool_calls_reply((name, {"zone": "UTC"}), id_prefix="call_check")


async def never_calls(request: dict[str, Any]) -> Reply | None:
    """A chat format without function calling: text whatever the request asks."""
    return None if _offered(request) is None else text_reply("I cannot tell the time.")


async def calls_only_when_told(request: dict[str, Any]) -> Reply | None:
    """A model that, left to choose (`tool_choice` "auto" or none), answers in text, and
    calls the tool only when the request names it; other forcing forms are refused."""
    name = _offered(request)
    if name is None:
        return None
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        return tool_calls_reply((name, {}), id_prefix="call_told")
    if choice not in (None, "auto"):
        return error_reply(500, {"error": {"message": f"tool_choice {choice!r} not supported"}})
    return text_reply("It is noon, probably.")


async def refuses_results(request: dict[str, Any]) -> Reply | None:
    """Calls the tool, then fails on the `tool` message carrying its result."""
    if _offered(request) is not None and _answered(request):
        body = {"error": {"message": "unknown role: tool", "type": "server_error"}}
        return error_reply(500, body)
    return await calls_tools(request)


async def garbles_arguments(request: dict[str, Any]) -> Reply | None:
    """Calls the tool with arguments that are not a JSON object."""
    name = _offered(request)
    if name is None or _answered(request):
        return await calls_tools(request)
    return tool_calls_reply((name, '{"zone": "UT'), id_prefix="call_bad")
