/** The Modelfile of the CLI issue (issue 6), as the tests use it: the tiny fixture with LFM2's template. */
export const issueModelfile = `FROM ./tiny.gguf
TEMPLATE """<|startoftext|><|im_start|>system
{{ .System }}<|im_end|>
<|im_start|>user
{{ .Prompt }}<|im_end|>
<|im_start|>assistant
"""
PARAMETER temperature 0.3
PARAMETER top_k 50
PARAMETER repeat_penalty 1.05
PARAMETER stop "<|im_end|>"
PARAMETER stop "<|endoftext|>"
`;
