"""The bot's routers, one per feature, collected in the order they must be tried.

The features: `commands` (/start, /help, /reset, /files, /status), `questions` (text answered
from the documents), `voice` (voice questions), `pictures` (a photo or an image file, or the
pictures of an album, asked about), `sources` (a tap on a source or page button),
`privacy` (/forget), `feedback` (the 👍/👎 under answers, the reasons and comments of a 👎),
`experts` ("Ask an expert" under an answer, and the asker's choice to show their name),
`expert_replies` (an expert's reply in the experts' chat sent to the asker, and saved),
`feedback_report` (/feedback), `usage` (/usage: tokens spent, budgets, costs), `documents`
(/rm, /mv, /trash), `admin` (uploads, /reindex), `access` (/allow, /deny, /users and request
buttons), `access_lists` (who may use the bot, as admins read it), `audit` (/audit), `gaps`
(/gaps), `source_sync` (/sources and the mirrored sources' buttons), `notices` (/subscribe,
/unsubscribe, /subscriptions), `scope` (/scope), `inline`
(search from any chat, `@bot words`, and the deep link of the cards it posts), `other`
(messages the bot cannot read).

Beside them: `private` (handlers for private chats only, and the one reply they give
elsewhere), `confirm` (the one "are you sure?" flow), `replies` (how handlers send texts and
answer taps), `filters`, `compose` and `listing`.
"""

from __future__ import annotations

from aiogram import Router

from bot.telegram.handlers import (
    access,
    admin,
    audit,
    commands,
    documents,
    expert_replies,
    experts,
    feedback,
    feedback_report,
    gaps,
    inline,
    notices,
    other,
    pictures,
    privacy,
    questions,
    scope,
    source_sync,
    sources,
    usage,
    voice,
)


def make_routers() -> list[Router]:
    """Admin first (it claims admins' documents), access, document management, the audit log,
    `/feedback`, `/forget`, the 👍/👎 taps and comments and the experts' taps and replies (a
    comment or an expert's reply is a reply, which would otherwise be a question), inline search
    (its deep link is a `/start`), commands, pictures (before questions, which would take an
    image file for a document), questions, voice questions, the fallback; then source buttons,
    which also answer any button no other router took."""
    return [
        admin.make_router(),
        scope.make_router(),
        access.make_router(),
        documents.make_router(),
        audit.make_router(),
        feedback_report.make_router(),
        gaps.make_router(),
        source_sync.make_router(),
        usage.make_router(),
        notices.make_router(),
        privacy.make_router(),
        feedback.make_router(),
        experts.make_router(),
        expert_replies.make_router(),
        inline.make_router(),
        commands.make_router(),
        pictures.make_router(),
        questions.make_router(),
        voice.make_router(),
        other.make_router(),
        sources.make_router(),
    ]
