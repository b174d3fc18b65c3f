"""``chitchat`` (seed 001): enjoyable chit-chat response generation from human text chats.

Seed 001 builds three generation tasks from real chats between people meeting for the first
time (2 or 3 speakers): the next utterance, the next utterance of a named speaker, and the
next N utterances with speaker labels. Replies are cut out of the model output by the seed's
regex post-processing and scored with ROUGE-1/2/L (簡易評価) and a reference-guided LLM judge
(単一評価, 比較評価); the judges are validated against human rankings by Spearman ρ.

Modules: :mod:`.corpus` (the chat corpus and its reader), :mod:`.labels` (speaker-label
families), :mod:`.dataset` (the task item and its reader), :mod:`.builder` and :mod:`.cli`
(``taiwa build chitchat``), :mod:`.prompts` (the seed's instructions and prompt layout),
:mod:`.extraction` (the regex post-processing), :mod:`.scoring` (extraction + ROUGE row),
:mod:`.human_ranks` (human rankings file and mean ranks), :mod:`.analysis` (rank correlation,
system ranking, per-task difficulty).
"""
