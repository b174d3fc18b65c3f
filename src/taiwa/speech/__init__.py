"""Speech for spoken-dialogue evaluation (seed 000 §3.3, §4).

The audio format every rendered file follows (:mod:`.wav`), the one check every audio input
passes before a model hears it, against the format its method declares (:mod:`.wav_check`),
text-to-speech (:mod:`.tts`, default ``pyopenjtalk-plus``), and rendering a dataset's utterances
to WAV files (:mod:`.render`). Speech recognition for cascaded systems is a model
(:mod:`taiwa.models.asr`, default faster-whisper with Whisper-base): models import nothing from
here.

This layer knows no method: it synthesises and checks what it is handed. numpy, scipy,
soundfile and pyopenjtalk are imported inside the functions that use them.
"""
