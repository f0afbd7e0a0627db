"""The admins' Mini App over real HTTP on 127.0.0.1: its page, who may use it, and each change
going through the same services as the commands (jail, scope, audit log).

The routes come from the bot's own wiring (`bot.telegram.run.admin_app`) over the dispatcher
the composition root built, with the real toolbox over the test documents folder; requests carry
`initData` signed with the bot's token exactly as Telegram signs it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest

from bot.storage.access import Person
from bot.telegram.texts import texts_for
from bot.telegram.texts.admin_app import ENGLISH_APP, RUSSIAN_APP
from tests.agent.test_stream_dialects import answer_stream
from tests.bot.access_support import expect_requests, sent_to, tap, texts_to
from tests.bot.admin_app_support import App
from tests.fakes.accounts import ADMIN_ID, BOT_TOKEN, STRANGER_ID, USER_ID

SECOND_ADMIN = 2003
CHARLOTTE = "документы/рецепт_шарлотки.txt"
LEASE = "документы/договор_аренды.md"


class TestThePage:
    async def test_the_page_and_its_script_with_a_strict_policy(self, open_app: Any) -> None:
        async with open_app() as app:
            async with app.client.get("/admin") as response:  # to the page's own address
                assert str(response.url).endswith("/admin/")
                page = await response.text()
                policy = response.headers["Content-Security-Policy"]
            assert '<script src="admin.js"' in page
            assert "script-src 'self' https://telegram.org" in policy
            assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
            async with app.client.get("/admin/admin.js") as response:
                assert response.status == 200
                assert "tgWebAppData" in await response.text()


class TestWhoMayUseIt:
    async def test_only_a_fresh_signature_of_an_admin_opens_it(self, open_app: Any) -> None:
        async with open_app() as app:
            async with app.client.get("/admin/api/me") as response:
                assert response.status == 401
                assert (await response.json())["error"] == ENGLISH_APP["error_auth"]
            forged = app.auth().replace(f"%22id%22%3A{ADMIN_ID}", f"%22id%22%3A{ADMIN_ID + 1}")
            assert forged != app.auth()
            async with app.client.get(
                "/admin/api/me", headers={"Authorization": forged}
            ) as response:
                assert response.status == 401
            status, body = await app.get("me", age_s=3 * 24 * 3600)
            assert status == 401
            assert body["error"] == ENGLISH_APP["error_auth"]  # who asks is not known yet
            status, body = await app.get("documents", user_id=USER_ID)
            assert (status, body) == (403, {"error": RUSSIAN_APP["error_admin"]})
            status, body = await app.get("me", lang="en")
            assert status == 200
            assert body["texts"]["title"] == ENGLISH_APP["title"]

    async def test_a_token_never_appears_in_what_the_page_gets(self, open_app: Any) -> None:
        async with open_app() as app:
            paths = ("me", "documents", "users", "scopes", "audit", "feedback", "trash", "usage")
            for path in paths:
                status, body = await app.get(path)
                assert status == 200, path
                assert BOT_TOKEN not in json.dumps(body, ensure_ascii=False)
                assert BOT_TOKEN.split(":")[1] not in json.dumps(body, ensure_ascii=False)


class TestDocuments:
    async def test_the_tree_says_which_files_are_searchable(
        self, open_app: Any, sandbox_dir: Path
    ) -> None:
        (sandbox_dir / "сломанный.pdf").write_bytes(b"%PDF-1.4 this is not a pdf at all")
        async with open_app() as app:
            await app.harness.services.toolbox.wait_synced()
            status, body = await app.get("documents")
            assert status == 200
            states = {d["path"]: (d["state"], d["error"]) for d in body["documents"]}
            assert states[CHARLOTTE] == ("indexed", None)
            state, error = states["сломанный.pdf"]
            assert state == "failed"
            assert error
            assert ".secret.txt" not in states

    async def test_trash_asks_for_confirmation_then_goes_through_the_jail_and_the_log(
        self, open_app: Any
    ) -> None:
        async with open_app() as app:
            status, body = await app.post("trash", {"path": CHARLOTTE})
            assert (status, body) == (400, {"error": RUSSIAN_APP["error_confirm"]})
            assert CHARLOTTE in await app.found("шарлотка")
            status, body = await app.post("trash", {"path": CHARLOTTE, "confirmed": True})
            assert status == 200
            assert CHARLOTTE not in await app.found("шарлотка")
            _, trash = await app.get("trash")
            (item,) = [i for i in trash["items"] if i["path"] == CHARLOTTE]
            status, _ = await app.post("restore", {"id": item["id"]})
            assert status == 200
            assert CHARLOTTE in await app.found("шарлотка")
            _, audit = await app.get("audit")
            done = [(e["action"], e["subject"], e["actor"]) for e in audit["entries"]]
            assert ("delete", CHARLOTTE, "Anna") in done
            assert ("restore", CHARLOTTE, "Anna") in done

    async def test_a_move_is_made_and_logged_and_a_path_out_is_refused(
        self, open_app: Any, sandbox_dir: Path
    ) -> None:
        async with open_app() as app:
            status, body = await app.post("move", {"source": LEASE, "target": "архив/аренда.md"})
            assert (status, body) == (200, {"source": LEASE, "target": "архив/аренда.md"})
            assert (sandbox_dir / "архив" / "аренда.md").is_file()
            assert "архив/аренда.md" in await app.found("аренда")
            for target in ("../наружу.md", "/etc/passwd"):
                status, body = await app.post("move", {"source": CHARLOTTE, "target": target})
                assert status == 409, target
                assert "<" not in body["error"]
            assert not (sandbox_dir.parent / "наружу.md").exists()
            _, audit = await app.get("audit")
            assert ("move", LEASE, "архив/аренда.md") in [
                (e["action"], e["subject"], e["detail"]) for e in audit["entries"]
            ]

    async def test_an_upload_is_saved_indexed_and_logged(
        self, open_app: Any, sandbox_dir: Path
    ) -> None:
        async with open_app() as app:
            form = aiohttp.FormData(quote_fields=False)  # as browsers send names
            form.add_field("folder", "hr")
            text = "Пропуск выдаёт охрана на первом этаже."
            form.add_field("file", text.encode(), filename="пропуск.txt")
            headers = {"Authorization": app.auth()}
            async with app.client.post(
                "/admin/api/upload", data=form, headers=headers
            ) as response:
                assert response.status == 200
                saved = await response.json()
            assert saved["path"] == "hr/пропуск.txt"
            assert saved["chars"] > 0
            assert "hr/пропуск.txt" in await app.found("пропуск охрана")
            _, audit = await app.get("audit")
            assert ("upload", "hr/пропуск.txt") in [
                (e["action"], e["subject"]) for e in audit["entries"]
            ]
            form = aiohttp.FormData(quote_fields=False)  # as browsers send names
            form.add_field("file", b"MZ\x90\x00", filename="программа.exe")
            async with app.client.post(
                "/admin/api/upload", data=form, headers=headers
            ) as response:
                assert response.status == 400
                assert ".exe" in (await response.json())["error"]
            assert not any("программа" in p for p in os.listdir(sandbox_dir))


class TestWithinTheAdminsScope:
    async def test_an_admin_sees_and_changes_only_their_folders(
        self, open_app: Any, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text(f'{ADMIN_ID} = ["hr"]\n', encoding="utf-8")
        async with open_app(scopes_file=scopes) as app:
            _, body = await app.get("documents")
            assert {d["path"] for d in body["documents"]} == {
                "hr/отпуск.md",
                "hr/vacation_policy.md",
            }
            status, _ = await app.post("trash", {"path": CHARLOTTE, "confirmed": True})
            assert status == 409
            assert CHARLOTTE in await app.found("шарлотка")
            _, me = await app.get("me")
            assert me["scope"] == ["hr"]


class TestPeople:
    async def test_a_grant_is_listed_and_revoked_once_confirmed(self, open_app: Any) -> None:
        async with open_app() as app:
            access = app.harness.dp["access"]
            await access.decide(4242, allow=True, by=Person(ADMIN_ID, "Anna"), via="command")
            _, people = await app.get("users")
            assert people["env_admins"] == [ADMIN_ID]
            assert 4242 in [g["id"] for g in people["grants"]]
            status, _ = await app.post("revoke", {"user_id": 4242})
            assert status == 400
            for not_a_person in ("x", 0, -4242):
                status, _ = await app.post("revoke", {"user_id": not_a_person, "confirmed": True})
                assert status == 400, not_a_person
            assert access.may_use(4242)
            status, body = await app.post("revoke", {"user_id": 4242, "confirmed": True})
            assert (status, body["result"]) == (200, "removed")
            assert not access.may_use(4242)
            _, audit = await app.get("audit")
            assert ("revoke", "4242") in [(e["action"], e["subject"]) for e in audit["entries"]]

    async def test_a_person_is_let_in_by_id_and_a_waiting_request_settled(
        self, open_app: Any
    ) -> None:
        async with open_app() as app:
            stranger = 5151
            await app.harness.feed(app.harness.updates.message("пустите", user_id=stranger))
            assert not app.harness.dp["access"].may_use(stranger)

            def told() -> int:
                sent = app.harness.session.called("sendMessage")
                return len([c for c in sent if c.chat_id == stranger])

            before = told()
            status, body = await app.post("allow", {"user_id": "x"})
            assert status == 400
            status, body = await app.post("allow", {"user_id": str(stranger)})
            assert (status, body) == (200, {"result": "allowed"})
            assert app.harness.dp["access"].may_use(stranger)
            assert told() == before + 1, "the person let in is told, as /allow tells them"
            assert (await app.post("allow", {"user_id": stranger}))[1] == {"result": "already"}
            _, audit = await app.get("audit")
            assert ("grant", str(stranger)) in [
                (e["action"], e["subject"]) for e in audit["entries"]
            ]


async def _stranger_asks(app: App, *admins: int) -> dict[int, int]:
    """A stranger who reads English writes to the bot; the ids of the admins' request copies."""
    ids = expect_requests(app.harness, *admins)
    message = app.harness.updates.message_json(
        "let me in", user_id=STRANGER_ID, language_code="en"
    )
    message["from"]["username"] = "stranger"
    await app.harness.feed(app.harness.updates.wrap("message", message))
    return ids


async def _tap(app: App, admin: int, message_id: int, action: str) -> None:
    """`admin` presses `action` under their copy of the stranger's request in Telegram."""
    (copy,) = sent_to(app.harness, admin)
    await tap(app.harness, copy, message_id, f"access:{action}:{STRANGER_ID}", admin)


def _let_in_notices(app: App) -> int:
    return texts_to(app.harness, STRANGER_ID).count(texts_for("en").let_in)


class TestWaitingRequests:
    async def test_a_waiting_request_is_listed_and_let_in_as_its_button_would(
        self, open_app: Any
    ) -> None:
        async with open_app(admin_ids=frozenset({ADMIN_ID, SECOND_ADMIN})) as app:
            _, waiting = await app.get("requests")
            assert waiting == {"requests": []}
            ids = await _stranger_asks(app, ADMIN_ID, SECOND_ADMIN)
            status, waiting = await app.get("requests", user_id=SECOND_ADMIN)
            assert status == 200
            (shown,) = waiting["requests"]
            now = app.harness.dp["tuning"].wall_clock()
            assert shown.pop("requested_at") == pytest.approx(now, abs=60)
            assert shown == {
                "id": STRANGER_ID,
                "name": f"User{STRANGER_ID}",
                "username": "stranger",
                "lang": "en",
            }

            status, body = await app.post("requests", {"user_id": STRANGER_ID, "action": "allow"})
            assert (status, body) == (200, {"result": "allowed"})
            assert app.harness.dp["access"].may_use(STRANGER_ID)
            assert _let_in_notices(app) == 1, "told once, in the language they read"
            for admin in (ADMIN_ID, SECOND_ADMIN):
                edits = app.harness.session.called("editMessageText")
                (edit,) = [e for e in edits if e.chat_id == admin]
                assert edit.message_id == ids[admin]
                assert "(@stranger) (ID" in str(edit.text)
                assert "was let in by Anna" in str(edit.text)
                assert edit.reply_markup is None
            assert (await app.get("requests"))[1] == {"requests": []}
            _, audit = await app.get("audit")
            assert ("grant", str(STRANGER_ID), "Anna", f"user, request, User{STRANGER_ID}") in [
                (e["action"], e["subject"], e["actor"], e["detail"]) for e in audit["entries"]
            ]

            await _tap(app, SECOND_ADMIN, ids[SECOND_ADMIN], "ignore")
            late = app.harness.session.called("answerCallbackQuery")[-1]
            assert late.show_alert
            assert late.text == texts_for("ru").request_settled_already.format(admin="Anna")
            assert app.harness.dp["access"].may_use(STRANGER_ID)
            assert _let_in_notices(app) == 1, "the late tap tells the person nothing again"

            status, body = await app.post("requests", {"user_id": STRANGER_ID, "action": "allow"})
            assert status == 409
            assert body["decided_by"] == "Anna"

    async def test_a_request_answered_in_telegram_is_refused_on_the_page(
        self, open_app: Any
    ) -> None:
        async with open_app() as app:
            ids = await _stranger_asks(app, ADMIN_ID)
            await _tap(app, ADMIN_ID, ids[ADMIN_ID], "ignore")
            assert (await app.get("requests"))[1] == {"requests": []}
            status, body = await app.post("requests", {"user_id": STRANGER_ID, "action": "allow"})
            assert status == 409
            assert body == {
                "error": texts_for("ru").request_settled_already.format(admin=f"User{ADMIN_ID}"),
                "decision": "ignored",
                "decided_by": f"User{ADMIN_ID}",
            }
            assert not app.harness.dp["access"].may_use(STRANGER_ID)
            assert _let_in_notices(app) == 0

    async def test_an_ignored_request_leaves_the_list_and_lets_nobody_in(
        self, open_app: Any
    ) -> None:
        async with open_app() as app:
            ids = await _stranger_asks(app, ADMIN_ID)
            status, body = await app.post("requests", {"user_id": STRANGER_ID, "action": "ignore"})
            assert (status, body) == (200, {"result": "ignored"})
            (edit,) = app.harness.session.called("editMessageText")
            assert (edit.chat_id, edit.message_id) == (ADMIN_ID, ids[ADMIN_ID])
            assert (await app.get("requests"))[1] == {"requests": []}
            assert not app.harness.dp["access"].may_use(STRANGER_ID)
            assert _let_in_notices(app) == 0

    async def test_only_admins_see_or_answer_and_a_bad_answer_is_explained(
        self, open_app: Any
    ) -> None:
        async with open_app() as app:
            await _stranger_asks(app, ADMIN_ID)
            status, body = await app.get("requests", user_id=USER_ID)
            assert (status, body) == (403, {"error": RUSSIAN_APP["error_admin"]})
            body_in = {"user_id": STRANGER_ID, "action": "allow"}
            status, body = await app.post("requests", body_in, user_id=USER_ID)
            assert (status, body) == (403, {"error": RUSSIAN_APP["error_admin"]})
            async with app.client.post("/admin/api/requests", json=body_in) as response:
                assert response.status == 401
            status, body = await app.post("requests", {"user_id": STRANGER_ID, "action": "x"})
            assert (status, body) == (
                400,
                {"error": RUSSIAN_APP["error_bad_request"].format(detail="action")},
            )
            status, body = await app.post("requests", {"user_id": 4444, "action": "ignore"})
            assert (status, body) == (
                404,
                {"error": RUSSIAN_APP["error_no_request"].format(id=4444)},
            )
            assert not app.harness.dp["access"].may_use(STRANGER_ID)
            assert [r["id"] for r in (await app.get("requests"))[1]["requests"]] == [STRANGER_ID]
            assert not app.harness.session.called("editMessageText")


class TestScopesAndFeedback:
    async def test_the_files_entries_and_a_topics_scope_set_in_telegram(
        self, open_app: Any, tmp_path: Path
    ) -> None:
        scopes = tmp_path / "scopes.toml"
        scopes.write_text('default = ["*"]\n"-100555/7" = ["hr"]\n', encoding="utf-8")
        async with open_app(scopes_file=scopes) as app:
            await app.harness.dp["scopes"].set_chat(-100555, None, by=ADMIN_ID, thread_id=9)
            _, body = await app.get("scopes")
            assert body["file"]["entries"] == [{"key": "-100555/7", "folders": ["hr"]}]
            assert [(s["place"], s["folders"]) for s in body["set"]] == [("-100555/9", None)]

    async def test_usage_is_the_models_reported_tokens_priced(
        self, open_app: Any, tmp_path: Path
    ) -> None:
        limits = tmp_path / "limits.toml"
        limits.write_text(
            'currency = "€"\n[prices."gpt-4o-mini"]\ninput = 1.0\noutput = 2.0\n',
            encoding="utf-8",
        )
        async with open_app(limits_file=limits, model="gpt-4o-mini") as app:
            app.harness.llm.reply_text("Ответ.", usage=(600_000, 200_000))
            await app.harness.feed(app.harness.updates.message("вопрос", user_id=USER_ID))
            status, usage = await app.get("usage")
            assert status == 200
            assert usage["currency"] == "€"
            assert usage["total"]["tokens"] == 800_000
            assert usage["total"]["cost"] == pytest.approx(0.6 + 0.4)
            assert [m["model"] for m in usage["models"]] == ["gpt-4o-mini"]
            assert sum(d["tokens"] for d in usage["days"]) == 800_000
            assert [u["id"] for u in usage["users"]] == [USER_ID]

    async def test_usage_the_bot_estimated_is_flagged(self, open_app: Any) -> None:
        async with open_app() as app:
            app.harness.llm.reply_text("Ответ.", usage=(600, 200))
            await app.harness.feed(app.harness.updates.message("вопрос", user_id=ADMIN_ID))
            _, reported = await app.get("usage")
            stream = answer_stream("Ответ без счёта.")
            app.harness.llm.reply_raw(stream, content_type="text/event-stream")
            await app.harness.feed(app.harness.updates.message("вопрос", user_id=USER_ID))
            _, usage = await app.get("usage")
        assert reported["total"]["estimated"] is False
        assert usage["total"]["estimated"] is True
        assert usage["total"]["tokens"] > 800
        assert {u["id"]: u["estimated"] for u in usage["users"]} == {
            ADMIN_ID: False,
            USER_ID: True,
        }

    async def test_votes_are_counted_by_day(self, open_app: Any) -> None:
        async with open_app() as app:
            _, body = await app.get("feedback")
            assert len(body["days"]) == 14
            assert sum(d["up"] + d["down"] for d in body["days"]) == 0


def _browser_missing() -> str | None:
    """Why the page cannot be opened in a browser here, or None."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[dev]')"
    for program in ("chromium", "chromedriver"):
        if shutil.which(program) is None:
            return f"{program} is not installed (Debian: apt-get install chromium chromium-driver)"
    return None


def _chromium() -> Any:
    """A headless Chromium driven by selenium (blocking); the caller quits it."""
    from selenium import webdriver  # noqa: PLC0415  (only where a browser is installed)
    from selenium.webdriver.chrome.options import Options  # noqa: PLC0415
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    options = Options()
    options.binary_location = str(shutil.which("chromium"))
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(str(shutil.which("chromedriver"))), options=options)


def _open_in_chromium(url: str, trash: str) -> dict[str, Any]:
    """Open the page headless, read the documents it lists, send `trash` to the trash through
    its button and the confirmation dialog, and read the list again (blocking)."""
    from selenium.webdriver.common.by import By  # noqa: PLC0415  (only where a browser is installed)
    from selenium.webdriver.support import expected_conditions  # noqa: PLC0415
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415

    driver = _chromium()
    try:
        wait = WebDriverWait(driver, 30)
        driver.get(url)
        shown = 'body[data-shown="documents"]'
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, shown)))
        before = [
            e.get_attribute("data-path") for e in driver.find_elements(By.CSS_SELECTOR, ".row")
        ]
        title = driver.find_element(By.ID, "title").text
        row = driver.find_element(By.CSS_SELECTOR, f'.row[data-path="{trash}"]')
        row.find_elements(By.TAG_NAME, "button")[-1].click()
        wait.until(expected_conditions.alert_is_present())
        question = driver.switch_to.alert.text
        driver.switch_to.alert.accept()
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, f'.row[data-path="{trash}"]'))
        after = [
            e.get_attribute("data-path") for e in driver.find_elements(By.CSS_SELECTOR, ".row")
        ]
        return {"title": title, "before": before, "after": after, "question": question}
    finally:
        driver.quit()


def _let_in_from_chromium(
    url: str, user_id: int, meanwhile: Callable[[], None] = lambda: None
) -> dict[str, Any]:
    """Open the page headless, go to the people tab, read the waiting request of `user_id`,
    run `meanwhile` and press the request's first button, "let in"; then read what the page
    says once the request has left it (blocking)."""
    from selenium.webdriver.common.by import By  # noqa: PLC0415  (only where a browser is installed)
    from selenium.webdriver.support import expected_conditions  # noqa: PLC0415
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415

    driver = _chromium()
    try:
        wait = WebDriverWait(driver, 30)
        driver.get(url)
        tab = (By.CSS_SELECTOR, 'nav button[data-tab="users"]')
        wait.until(expected_conditions.element_to_be_clickable(tab)).click()
        waiting = (By.CSS_SELECTOR, f'.row[data-request="{user_id}"]')
        row = wait.until(expected_conditions.presence_of_element_located(waiting))
        shown = row.text
        buttons = [b.text for b in row.find_elements(By.TAG_NAME, "button")]
        meanwhile()
        row.find_elements(By.TAG_NAME, "button")[0].click()
        wait.until(lambda d: d.find_element(By.ID, "message").text)
        wait.until(lambda d: not d.find_elements(*waiting))
        said = driver.find_element(By.ID, "message").text
        return {"shown": shown, "buttons": buttons, "said": said}
    finally:
        driver.quit()


def _usage_in_chromium(url: str) -> dict[str, Any]:
    """Open the page headless, go to the usage tab and read it (blocking)."""
    from selenium.webdriver.common.by import By  # noqa: PLC0415  (only where a browser is installed)
    from selenium.webdriver.support import expected_conditions  # noqa: PLC0415
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415

    driver = _chromium()
    try:
        wait = WebDriverWait(driver, 30)
        driver.get(url)
        tab = (By.CSS_SELECTOR, 'nav button[data-tab="usage"]')
        wait.until(expected_conditions.element_to_be_clickable(tab)).click()
        shown = 'body[data-shown="usage"]'
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, shown)))
        return {"text": driver.find_element(By.ID, "view").text}
    finally:
        driver.quit()


class TestInABrowser:
    async def test_the_page_lists_the_documents_and_trashes_one_after_asking(
        self, open_app: Any, sandbox_dir: Path
    ) -> None:
        missing = _browser_missing()
        if missing is not None:
            pytest.skip(f"no browser for the Mini App page: {missing}")
        async with open_app() as app:
            init_data = app.auth().removeprefix("tma ")
            url = str(app.client.make_url("/admin/")) + "#tgWebAppData=" + quote(init_data)
            seen = await asyncio.to_thread(_open_in_chromium, url, CHARLOTTE)
            assert seen["title"] == RUSSIAN_APP["title"]
            assert CHARLOTTE in seen["before"]
            assert "hr/отпуск.md" in seen["before"]
            assert seen["question"] == RUSSIAN_APP["confirm_trash"].format(path=CHARLOTTE)
            assert CHARLOTTE not in seen["after"]
            assert LEASE in seen["after"]
            assert not (sandbox_dir / CHARLOTTE).exists()
            _, audit = await app.get("audit")
            assert ("delete", CHARLOTTE) in [(e["action"], e["subject"]) for e in audit["entries"]]

    async def test_the_usage_tab_marks_the_bots_estimates(self, open_app: Any) -> None:
        missing = _browser_missing()
        if missing is not None:
            pytest.skip(f"no browser for the Mini App page: {missing}")
        async with open_app() as app:
            stream = answer_stream("Ответ без счёта.")
            app.harness.llm.reply_raw(stream, content_type="text/event-stream")
            await app.harness.feed(app.harness.updates.message("вопрос", user_id=USER_ID))
            init_data = app.auth().removeprefix("tma ")
            url = str(app.client.make_url("/admin/")) + "#tgWebAppData=" + quote(init_data)
            seen = await asyncio.to_thread(_usage_in_chromium, url)
        assert RUSSIAN_APP["usage_total"] + ": ≈" in seen["text"]
        assert seen["text"].endswith(RUSSIAN_APP["usage_estimated"])

    async def test_the_people_tab_lets_a_waiting_person_in(self, open_app: Any) -> None:
        missing = _browser_missing()
        if missing is not None:
            pytest.skip(f"no browser for the Mini App page: {missing}")
        async with open_app() as app:
            await _stranger_asks(app, ADMIN_ID)
            init_data = app.auth().removeprefix("tma ")
            url = str(app.client.make_url("/admin/")) + "#tgWebAppData=" + quote(init_data)
            seen = await asyncio.to_thread(_let_in_from_chromium, url, STRANGER_ID)
            assert f"User{STRANGER_ID} @stranger" in seen["shown"]
            assert f"ID {STRANGER_ID}" in seen["shown"]
            assert seen["buttons"] == [RUSSIAN_APP["waiting_allow"], RUSSIAN_APP["waiting_ignore"]]
            assert seen["said"] == RUSSIAN_APP["waiting_allowed"].format(name=f"User{STRANGER_ID}")
            assert app.harness.dp["access"].may_use(STRANGER_ID)
            assert _let_in_notices(app) == 1

    async def test_a_request_answered_in_telegram_meanwhile_leaves_the_page(
        self, open_app: Any
    ) -> None:
        missing = _browser_missing()
        if missing is not None:
            pytest.skip(f"no browser for the Mini App page: {missing}")
        async with open_app() as app:
            ids = await _stranger_asks(app, ADMIN_ID)
            init_data = app.auth().removeprefix("tma ")
            url = str(app.client.make_url("/admin/")) + "#tgWebAppData=" + quote(init_data)
            loop = asyncio.get_running_loop()

            def ignored_in_telegram() -> None:
                tapped = _tap(app, ADMIN_ID, ids[ADMIN_ID], "ignore")
                asyncio.run_coroutine_threadsafe(tapped, loop).result(30)

            seen = await asyncio.to_thread(
                _let_in_from_chromium, url, STRANGER_ID, ignored_in_telegram
            )
            assert seen["said"] == texts_for("ru").request_settled_already.format(
                admin=f"User{ADMIN_ID}"
            )
            assert not app.harness.dp["access"].may_use(STRANGER_ID)
            assert _let_in_notices(app) == 0
