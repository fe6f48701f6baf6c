"""The production models students do not write, with their data: the course's decoder
(`model`), its batches and trainer (`data`, `train`), generation (`generation`), the email
corpus and tokenizers (`corpus`, `tokenizer`), the Qwen3-style decoder of notebook 10
(`qwen3`) and the encoder-decoder of notebook 11 with its reply task (`seq2seq`,
`replies`)."""
