"""Speech for spoken-dialogue evaluation (seed 000 §3.3, §4): the audio format every rendered
file follows (:mod:`.wav`), text-to-speech (:mod:`.tts`, default ``pyopenjtalk-plus``),
rendering a dataset's utterances to WAV files (:mod:`.render`) and speech recognition for
cascaded systems (:mod:`.asr`, default faster-whisper with Whisper-base).

This layer knows no method: it synthesises and transcribes what it is handed. numpy, scipy,
soundfile, pyopenjtalk and faster-whisper are imported inside the functions that use them.
"""
