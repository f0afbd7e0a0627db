"""The bot's texts in English."""

from __future__ import annotations

from bot.agent.quotes.marks import ENGLISH_WORDS
from bot.telegram.texts.model import Texts
from bot.telegram.texts.usage import ENGLISH_USAGE

ENGLISH = Texts(
    lang="en",
    about="👋 I answer questions from the documents in a shared folder and name the files "
    "each answer comes from.",
    ask_hint="Just type your question, for example: <i>how many vacation days do I get?</i>",
    documents_count="📚 Searchable documents: <b>{n}</b>.",
    index_building="⏳ The index is still being built; some files may not be found yet.",
    group_privacy="👥 In groups I answer only when you mention me with @ or reply to my "
    "message (privacy mode).",
    commands_help="/help — how to use me\n/reset — start a new conversation (or /new)\n"
    "/files — what is in the folder\n/status — model, context and search\n"
    "/subscribe [folder] — hear of new, changed and removed documents (/subscriptions, "
    "/unsubscribe)\n"
    "/forget — delete your conversations for good",
    admin_help="🛠 For admins: to add a file, send it as a document in a private chat. A "
    "caption such as <code>docs/hr</code> picks the folder. /reindex rebuilds the index.\n"
    "/allow ID lets someone in, /deny ID takes access away, /users shows who may use the bot.\n"
    "/rm PATH deletes to the trash, /mv FROM TO moves or renames, /trash restores, /audit "
    "shows the last admin actions, /feedback the 👍 and 👎 under answers.\n"
    "/gaps shows the questions the documents could not answer, /sources the mirrored sources "
    "(last sync, changes, errors, deletions waiting for a confirmation).",
    reset_done="🆕 New conversation started: earlier messages no longer count.",
    files_header="📂 Files in the folder ({total}):",
    files_empty="📂 The documents folder is empty so far.",
    files_more="…and {n} more. Ask me and I will find the right file.",
    folder_more="… and {n} more",
    stranger="🔒 You do not have access to this bot.\nYour Telegram ID: {id}\n"
    "Send it to the bot's admin and ask to be added.",
    rate_limited="⏳ That is a lot of questions in a row. You can ask the next one in about "
    "{minutes}.",
    chat_busy="⏳ I am still answering your earlier questions. Wait for the answer and ask again.",
    empty_question="✍️ Please ask in words, for example: <i>where is the apple pie recipe?</i>",
    non_text="I understand text, pictures and voice messages: type or say your question, or "
    "send a photo, and I will look for the answer in the documents. I cannot read stickers or "
    "videos.",
    voice_hint="🎤 You can also ask by voice: send a voice message, an audio file or a video "
    "note.",
    voice_heard="🎤 <i>“{text}”</i>",
    voice_off="🎤 Voice questions are turned off for this bot. Please type your question.",
    voice_too_long="🎤 The recording is too long ({length}): I transcribe up to {limit}. Ask in "
    "a shorter message or type your question.",
    voice_too_big="🎤 The recording is too big to transcribe: the limit is {limit} MB. Send a "
    "shorter one or type your question.",
    voice_empty="🎤 I could not make out any words in the recording. Say it again more clearly "
    "or type your question.",
    voice_unavailable="⚠️ The speech recognition server is down or cannot be reached, so I "
    "could not hear the recording. Type your question or try again in a minute.",
    voice_auth="⚠️ The speech recognition server refused the key or does not know the model. "
    "Type your question, and tell the admin.",
    voice_rate_limited="⚠️ The speech recognition server is overloaded. Try again in a minute "
    "or type your question.",
    voice_failed="⚠️ Could not transcribe the recording. Try again or type your question.",
    voice_download_failed="⚠️ Could not download the recording from Telegram. Please send it "
    "again.",
    picture_hint="🖼 You can send a photo or a screenshot too, with your question in the caption.",
    picture_question="What is in this picture, and what do the documents say about it?",
    picture_too_big="🖼 The picture is too big: I look at pictures up to {limit} MB. Send it as "
    "a photo (Telegram makes it smaller) or send a smaller file.",
    picture_too_many_pixels="🖼 The picture has too many pixels for me to open. Send it as a "
    "photo or a smaller copy.",
    picture_unreadable="🖼 I could not open this picture: the file is damaged or in a format I do "
    "not read. Send it as a photo (JPEG or PNG).",
    picture_download_failed="⚠️ Could not download the picture from Telegram. Please send it "
    "again.",
    picture_numbered="Picture {n}: {reply}",
    pictures_over_count="🖼 You sent {sent} pictures; I look at the first {most} of them.",
    caption_as_question="ℹ️ Only admins can add documents, so I read your caption as a question.",
    upload_refused="🔒 Only admins can add documents. If you have a question, type it as text.",
    admin_only="🔒 This command is for admins only.",
    upload_too_big="📦 The file is too big: {size} MB, and the limit is {limit} MB.",
    upload_over_limit="📦 The file is too big: over {limit} MB. The download was stopped.",
    upload_too_big_for_server="📦 Telegram does not give bots files over 20 MB. Copy the file "
    "into the documents folder by hand or use a self-hosted Bot API server.",
    upload_bad_folder="📁 I cannot use the folder “{folder}”: it is outside the documents "
    "folder or its name is not allowed. Nothing was written.",
    folder_is_file="📁 “{folder}” is a file, not a folder. Nothing was written.",
    upload_disk_full="💾 Could not save: the disk is full. Nothing was written.",
    upload_download_failed="⚠️ Could not download the file from Telegram. Please send it again.",
    upload_download_timeout="⚠️ The download took too long and was stopped. Please send the "
    "file again.",
    upload_failed="⚠️ Could not save the file; nothing was written. The log has the details.",
    upload_in_private="📥 Documents are added in a private chat with me: send the file there.",
    caption_not_folder="ℹ️ The caption does not look like a path, so the file went to the top "
    "folder. To pick a folder, make the caption just the path, e.g. <code>docs/hr</code>.",
    upload_saved_text="✅ Saved: {path}\nCharacters extracted: {chars}. It is searchable now.",
    upload_saved_no_text="⚠️ Saved: {path}\nBut no text could be extracted from it, so "
    "searches will not find it.",
    upload_ocr_pages="Pages recognised from the scan (OCR): {pages}. The text may contain "
    "recognition errors.",
    upload_outside_scope="📁 The folder {folder} is outside the folders you work with here: "
    "{folders}. Nothing was saved. Name a folder inside them, or send the file without a "
    "caption.",
    upload_no_folder="📁 No folder is open to you here, so there is nowhere to save the file; "
    "nothing was written. SCOPES_FILE and /scope set the folders.",
    upload_unreadable="🚫 {name} was not saved: I cannot read files of this kind. I read "
    "{kinds}, and plain text. Any other file can be put into the documents folder by hand.",
    write_as_yourself="👤 I only answer people: write from your own account, not as the group "
    "or a channel.",
    group_not_allowed="🔒 I do not answer in this group. Message me privately instead.",
    reindex_started="🔄 Rebuilding the index…",
    reindex_done="✅ Index rebuilt in {seconds} s: {indexed} searchable, {skipped} skipped, "
    "{errors}.",
    reindex_needs_ocr="⚠️ Scans that need OCR, which is not installed here: {count}. They are "
    "found by name only; install Tesseract (<code>tesseract-ocr tesseract-ocr-rus</code>) and run "
    "/reindex.",
    reindex_failed="⚠️ Could not rebuild the index. The log has the details.",
    status_title="<b>Status</b>",
    status_version="Bot version: {version}",
    status_model="🤖 Model: {model}",
    status_models="🔀 <b>Models</b> (the main one first, then the fallbacks):",
    status_model_on="🟢 {model}: in use",
    status_model_paused="🔴 {model}: passed over after a failure ({kind}), tried again in {wait}",
    status_model_due="🟡 {model}: tried again with the next question",
    status_reranker_on="🟢 Reranker: in use, searches are reranked",
    status_reranker_paused="🔴 Reranker: passed over after a failure ({kind}), searches keep "
    "their own order; tried again in {wait}",
    status_reranker_due="🟡 Reranker: tried again with the next search",
    status_context="🧠 Context: {tokens} of {window} tokens ({percent}%), {messages}",
    status_documents="📚 Searchable documents: {n}",
    status_building="(the index is still being built)",
    status_meaning="🧭 Search by meaning: {done} of {total} passages",
    status_meaning_error="⚠️ Embeddings server: {error}",
    status_last="🔁 Last question: {rounds}, {prompt} tokens in + {completion} out",
    status_no_last="🔁 No questions in this conversation yet.",
    status_estimated=ENGLISH_USAGE.estimated,
    error_unavailable="⚠️ The model server is down or too slow right now. Try again in a minute.",
    error_stream_cut="⚠️ The model's answer was cut off midway: the connection to the model "
    "server broke. Please ask again.",
    error_auth="⚠️ The model server refused the key or does not know the model. Tell the admin.",
    error_rate_limited="⚠️ The model server is overloaded. Try again in a minute.",
    error_bad_reply="⚠️ The model sent a reply I could not use. Try rephrasing the question.",
    error_too_long="⚠️ The question or the conversation is too long for the model. Shorten the "
    "question or start over with /reset.",
    error_generic="⚠️ Something went wrong. Please try again a bit later.",
    error_interrupted="⚠️ The bot is restarting and could not finish. Please ask again in a "
    "minute.",
    delivery_partial="⚠️ Part of the answer could not be delivered. Please ask again.",
    note_cut_short="_The search was cut short: this answer uses what was found so far._",
    note_truncated="_The answer stopped at the model's length limit. Write “continue”._",
    note_pictures_as_text="🖼 _The model could not look at the picture, so I read only the text "
    "in it._",
    # Markdown, {model} escaped
    note_fallback="↪️ _Answered by the fallback model {model}: the main model is unavailable._",
    note_handover="↪️ _The answer broke off here; the fallback model {model} wrote the rest:_",
    sources_label="📄 Sources:",
    sources_more="and {n} more",
    note_not_from_documents="ℹ️ _Not from the documents: no document was read for this answer._",
    quote_words=ENGLISH_WORDS,
    source_too_big="📄 {name} is {size} MB, and Telegram lets bots send files of up to "
    "{limit} MB. Here is the page the answer was based on:",
    source_unreadable="📄 {name} is {size} MB, too big to send in Telegram, and its text "
    "could not be read.",
    source_send_failed="⚠️ Could not send {name}. Please try again a bit later.",
    # plain: pop-ups on a source's button
    source_sending="📤 Sending the file…",
    source_expired="This button has expired: ask the question again.",
    source_gone="This file is no longer in the documents folder.",
    button_no_access="🔒 You do not have access to this bot.",
    # plain: pop-ups on any button pressed where it was not put
    button_outdated="This button is outdated and no longer works: ask again or send the "
    "command again.",
    button_not_here="This button does not belong to this message: nothing was done.",
    # plain: page buttons (the label, the photo's caption, pop-ups and replies on a tap)
    page_button="🖼 p. {page}",
    page_caption="{name}, p. {page}",
    page_drawing="🖼 Drawing page {page}…",
    page_missing="This file has no page {page}: it may have been replaced by another version.",
    page_failed="⚠️ Page {page} could not be shown: the file is damaged or too complex. Open "
    "the file itself with its 📄 button.",
    page_later="⏳ Page {page} is taking too long to draw. Please try again a bit later.",
    progress_thinking="🤔 Thinking…",
    progress_tools={
        "search_files": "🔎 Searching for “{subject}”…",
        "read_file": "📖 Reading {subject}…",
        "list_files": "📂 Looking into {subject}…",
    },
    progress_tool="🔧 Tool {tool}: {subject}…",
    progress_writing="✍️ Writing the answer…",
    # plain: a status message from before a restart becomes this
    progress_restarted="⚠️ The bot restarted before it could answer this question. "
    "Please send it again.",
    pairing_done="✅ You are now the bot's admin.\n/allow ID lets someone in, /deny ID takes "
    "access away, /users shows who may use the bot. When someone without access writes to me, "
    "you get their request with buttons.",
    pairing_already_admin="ℹ️ You are already an admin of this bot; the code was not used.",
    pairing_wrong="❌ That code does not work: it is wrong or was used already. Run "
    "<code>python -m bot pair</code> on the server for a new one. Tries left before a one-hour "
    "lockout: {left}.",
    pairing_expired="⌛ That code has expired: codes work for 10 minutes. Run "
    "<code>python -m bot pair</code> on the server for a new one.",
    pairing_locked="🔒 Too many wrong codes. Try again in about {minutes}.",
    request_sent="🔒 You do not have access to this bot yet. I have asked its admins to let you "
    "in; you will get a message here when they do.\nYour Telegram ID: {id}",
    request_pending="⏳ Your request is with the admins. You will get a message here when they "
    "let you in.\nYour Telegram ID: {id}",
    request_to_admin="🙋 {who} asks for access to the bot.\nTelegram ID: {id}",
    # plain: button labels
    request_allow_button="✅ Let in",
    request_ignore_button="🙈 Ignore",
    request_allowed="✅ {who} (ID {id}) was let in by {admin}.",
    request_ignored="🙈 The request of {who} (ID {id}) was ignored by {admin}.",
    # plain: a pop-up on the button
    request_settled_already="This request was answered already, by {admin}.",
    let_in="✅ You have access to the bot now. Just type your question, for example: "
    "<i>where is the apple pie recipe?</i>",
    access_usage="Add the person's numeric Telegram ID, for example "
    "<code>/{command} 123456789</code>. People without access see their ID when they write "
    "to me.",
    access_bad_id="⚠️ {value} is not a Telegram user id: ids are whole numbers from 1 to {max}.",
    access_in_private="🔒 Access is managed in a private chat with me, so that the list of "
    "people stays out of the group.",
    allow_done="✅ {id} may use the bot now.",
    allow_already="ℹ️ {id} may already use the bot.",
    deny_done="🚫 {id} may no longer use the bot.",
    deny_not_granted="ℹ️ {id} was not given access in Telegram; nothing changed.",
    deny_env_admin="⚠️ {id} is an admin listed in ADMIN_IDS in .env and cannot be removed from "
    "Telegram: remove them there and restart the bot.",
    deny_env_user="⚠️ {id} is listed in ALLOWED_USER_IDS in .env, so they keep their access: "
    "remove them there and restart the bot.",
    deny_self="⚠️ You cannot take away your own access.",
    deny_last_admin="⚠️ {id} is the bot's only admin: without them nobody could manage the "
    "bot. Make someone else an admin first.",
    deny_allow_all_note="ℹ️ ALLOW_ALL is on, so everyone may still use the bot.",
    users_title="<b>Who may use the bot</b>",
    users_allow_all="🌐 ALLOW_ALL is on: everyone may use the bot.",
    users_from_env="From .env (changed only there):",
    users_granted="Granted in Telegram (/deny ID takes it away):",
    users_none_granted="Nobody was given access in Telegram yet.",
    users_more="…and {n} more.",
    role_admin="admin",
    role_user="user",
    grant_paired="{role}, paired with a code, {when}",
    grant_by="{role}, let in by {admin}, {when}",
    status_granted="👥 Access granted in Telegram: {n}",
    manage_in_private="🔒 Documents are managed in a private chat with me, so that their "
    "names stay out of the group.",
    rm_usage="Name the file or folder to delete, for example <code>/rm docs/old.pdf</code>. "
    "/files shows what is there.",
    mv_usage="Name what to move and where, for example <code>/mv docs/old.pdf archive/</code> "
    "(into a folder) or <code>/mv old.pdf new.pdf</code> (a new name). Put a path with spaces "
    "in quotes.",
    path_problems={
        "empty": "⚠️ No path given.",
        "invalid": "⚠️ {path} cannot be used: hidden names (starting with a dot) and malformed "
        "paths are not allowed.",
        "outside": "⚠️ {path} leads outside the documents folder.",
        "missing": "⚠️ There is no {path} in the documents folder. /files shows what is there.",
        "root": "⚠️ The documents folder itself cannot be deleted or moved.",
        "link": "⚠️ {path} is a link; links are changed on the server, not from Telegram.",
        "exists": "⚠️ {path} already exists; nothing was overwritten. Choose another name.",
        "inside": "⚠️ {path} is inside what you are moving: a folder cannot go into itself.",
        "protected": "⚠️ {path} holds the bot's own data (DATA_DIR): it cannot be deleted or "
        "moved from Telegram. Move DATA_DIR out of the documents folder.",
    },
    rm_confirm="🗑 Move {path} to the trash? It stays restorable with /trash for {days} days.",
    mv_confirm="📦 Move {source} to {target}?",
    # plain: button labels
    confirm_button="✅ Yes",
    cancel_button="✖️ Cancel",
    cancelled="✖️ Cancelled; nothing changed.",
    # plain: a pop-up on the button
    confirm_expired="This button has expired or was used already. Send the command again.",
    rm_done="🗑 {path} is in the trash and no longer found by search; /trash restores it.",
    mv_done="📦 Moved: {source} → {target}. Search finds it at its new place.",
    change_failed="⚠️ That could not be done, so the files stay as they were. The details are "
    "in the bot's log.",
    trash_title="🗑 <b>Trash</b> (each item is kept {days} days; tap to restore):",
    trash_empty="🗑 The trash is empty.",
    trash_line="{n}. {path}, deleted {when}",
    # plain: button label
    restore_button="↩️ Restore {n}: {path}",
    restore_done="↩️ Restored: {path}. Search finds it again.",
    restore_conflict="⚠️ {path} exists again, so the deleted copy stays in the trash and nothing "
    "was overwritten. Rename or move the existing one first (/mv), then tap again.",
    # plain: a pop-up on the button
    restore_gone="This is no longer in the trash.",
    audit_title="<b>Last admin actions</b>",
    audit_empty="No admin actions recorded yet.",
    audit_actions={
        "upload": "uploaded",
        "move": "moved",
        "delete": "deleted",
        "restore": "restored",
        "confirm": "confirmed the deletions in",
        "scope": "set the scope of",
        "grant": "granted access to",
        "revoke": "took access from",
    },
    forget_confirm="🧹 Delete your conversations with me for good? That is this private chat "
    "and your own questions in groups, with my answers and the buttons under them. It cannot "
    "be undone. Your access to the bot stays as it is.",
    # plain: button label
    forget_button="🧹 Delete for good",
    forget_done="🧹 Done: {n} deleted, irreversibly. I keep nothing of what you asked, and "
    "your next question starts a new conversation.",
    command_descriptions=(
        ("start", "What this bot does"),
        ("help", "How to use it"),
        ("reset", "Start a new conversation"),
        ("files", "What is in the documents folder"),
        ("status", "Model, context and search"),
        ("subscribe", "Follow the changes in a folder"),
        ("forget", "Delete my conversations"),
        ("usage", "My use of the model and my budget"),
    ),
    admin_command_descriptions=(
        ("reindex", "Rebuild the index (admins)"),
        ("allow", "Let someone in: /allow ID (admins)"),
        ("deny", "Take access away: /deny ID (admins)"),
        ("users", "Who may use the bot (admins)"),
        ("scope", "Folders this chat sees: /scope FOLDERS (admins)"),
        ("rm", "Delete to the trash: /rm PATH (admins)"),
        ("mv", "Move or rename: /mv FROM TO (admins)"),
        ("trash", "Restore deleted documents (admins)"),
        ("audit", "Last admin actions (admins)"),
        ("feedback", "Feedback on answers (admins)"),
        ("gaps", "Questions the documents could not answer (admins)"),
        ("sources", "Mirrored sources: last sync, errors (admins)"),
    ),
    minutes_forms=("minute", "minutes"),
    rounds_forms=("round", "rounds"),
    messages_forms=("message", "messages"),
    errors_forms=("error", "errors"),
    conversations_forms=("conversation", "conversations"),
)
