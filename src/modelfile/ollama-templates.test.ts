import { describe, expect, test } from 'vitest';
import type { PromptMessage } from './render-prompt.js';
import { renderPrompt } from './render-prompt.js';

// Ollama's bundled templates and their expected renders, copied verbatim from ollama/ollama
// (MIT) at fb30760996871fa9460115c753afd2c60d4ab0f7: template/*.gotmpl and template/testdata/.
// template_test.go renders each with Values{Messages} and compares byte for byte.

const conversations: Record<string, PromptMessage[]> = {
  user: [{ role: 'user', content: 'Hello, how are you?' }],
  'user-assistant-user': [
    { role: 'user', content: 'Hello, how are you?' },
    { role: 'assistant', content: "I'm doing great. How can I help you today?" },
    { role: 'user', content: "I'd like to show off how chat templating works!" },
  ],
  'system-user-assistant-user': [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Hello, how are you?' },
    { role: 'assistant', content: "I'm doing great. How can I help you today?" },
    { role: 'user', content: "I'd like to show off how chat templating works!" },
  ],
};

// template_test.go drops one trailing space from these templates' output before comparing.
const trailingSpace = new Set(['chatqa', 'llama2-chat', 'mistral-instruct', 'openchat', 'vicuna']);

const templates: Record<string, { template: string; expected: Record<string, string> }> = {
  alfred: {
    template:
      '{{- range .Messages }}<start_{{ .Role }}>{{ .Content }}<end_message>\n{{- end }}<start_assistant>',
    expected: {
      user: '<start_user>Hello, how are you?<end_message><start_assistant>',
      'user-assistant-user':
        "<start_user>Hello, how are you?<end_message><start_assistant>I'm doing great. How can I help you today?<end_message><start_user>I'd like to show off how chat templating works!<end_message><start_assistant>",
      'system-user-assistant-user':
        "<start_system>You are a helpful assistant.<end_message><start_user>Hello, how are you?<end_message><start_assistant>I'm doing great. How can I help you today?<end_message><start_user>I'd like to show off how chat templating works!<end_message><start_assistant>",
    },
  },
  alpaca: {
    template:
      '{{- $system := "" }}\n{{- range .Messages }}\n{{- if eq .Role "system" }}\n{{- if not $system }}{{ $system = .Content }}\n{{- else }}{{ $system = printf "%s\\n\\n%s" $system .Content }}\n{{- end }}\n{{- else if eq .Role "user" }}\n{{- if $system }}{{ $system }}\n\n{{ $system = "" }}\n{{- end }}### Instruction:\n{{ .Content }}\n\n{{ else if eq .Role "assistant" }}### Response:\n{{ .Content }}\n\n{{ end }}\n{{- end }}### Response:\n',
    expected: {
      user: '### Instruction:\nHello, how are you?\n\n### Response:\n',
      'user-assistant-user':
        "### Instruction:\nHello, how are you?\n\n### Response:\nI'm doing great. How can I help you today?\n\n### Instruction:\nI'd like to show off how chat templating works!\n\n### Response:\n",
      'system-user-assistant-user':
        "You are a helpful assistant.\n\n### Instruction:\nHello, how are you?\n\n### Response:\nI'm doing great. How can I help you today?\n\n### Instruction:\nI'd like to show off how chat templating works!\n\n### Response:\n",
    },
  },
  chatml: {
    template:
      '{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>\n{{ end }}<|im_start|>assistant\n',
    expected: {
      user: '<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\n',
      'user-assistant-user':
        "<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\nI'm doing great. How can I help you today?<|im_end|>\n<|im_start|>user\nI'd like to show off how chat templating works!<|im_end|>\n<|im_start|>assistant\n",
      'system-user-assistant-user':
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\nI'm doing great. How can I help you today?<|im_end|>\n<|im_start|>user\nI'd like to show off how chat templating works!<|im_end|>\n<|im_start|>assistant\n",
    },
  },
  chatqa: {
    template:
      '{{- range .Messages }}\n{{- if eq .Role "system" }}System:\n{{- else if eq .Role "user" }}User:\n{{- else if eq .Role "assistant" }}Assistant:\n{{- end }} {{ .Content }}\n\n{{ end }}Assistant:',
    expected: {
      user: 'User: Hello, how are you?\n\nAssistant:',
      'user-assistant-user':
        "User: Hello, how are you?\n\nAssistant: I'm doing great. How can I help you today?\n\nUser: I'd like to show off how chat templating works!\n\nAssistant:",
      'system-user-assistant-user':
        "System: You are a helpful assistant.\n\nUser: Hello, how are you?\n\nAssistant: I'm doing great. How can I help you today?\n\nUser: I'd like to show off how chat templating works!\n\nAssistant:",
    },
  },
  'codellama-70b-instruct': {
    template:
      '{{- range .Messages }}Source:\n{{- if eq .Role "system" }} system\n{{- else if eq .Role "user" }} user\n{{- else if eq .Role "assistant" }} assistant\n{{- end }}\n\n {{ .Content }} <step> {{ end }}Source: assistant\nDestination: user\n\n ',
    expected: {
      user: 'Source: user\n\n Hello, how are you? <step> Source: assistant\nDestination: user\n\n ',
      'user-assistant-user':
        "Source: user\n\n Hello, how are you? <step> Source: assistant\n\n I'm doing great. How can I help you today? <step> Source: user\n\n I'd like to show off how chat templating works! <step> Source: assistant\nDestination: user\n\n ",
      'system-user-assistant-user':
        "Source: system\n\n You are a helpful assistant. <step> Source: user\n\n Hello, how are you? <step> Source: assistant\n\n I'm doing great. How can I help you today? <step> Source: user\n\n I'd like to show off how chat templating works! <step> Source: assistant\nDestination: user\n\n ",
    },
  },
  'command-r': {
    template:
      '{{- if or .Tools .System }}<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>\n{{- if .Tools }}# Safety Preamble\nThe instructions in this section override those in the task description and style guide sections. Don\'t answer questions that are harmful or immoral.\n\n# System Preamble\n## Basic Rules\nYou are a powerful conversational AI trained by Cohere to help people. You are augmented by a number of tools, and your job is to use and consume the output of these tools to best help the user. You will see a conversation history between yourself and a user, ending with an utterance from the user. You will then see a specific instruction instructing you what kind of response to generate. When you answer the user\'s requests, you cite your sources in your answers, according to those instructions.\n\n{{ if .System }}# User Preamble\n{{ .System }}\n{{- end }}\n\n## Available Tools\nHere is a list of tools that you have available to you:\n{{- range .Tools }}\n\n```python\ndef {{ .Function.Name }}(\n{{- range $name, $property := .Function.Parameters.Properties }}{{ $name }}: {{ $property.Type }}, {{ end }}) -> List[Dict]:\n    \'\'\'{{ .Function.Description }}\n\n{{- if .Function.Parameters.Properties }}\n\n    Args:\n{{- range $name, $property := .Function.Parameters.Properties }}\n        {{ $name }} ({{ $property.Type }}): {{ $property.Description }}\n{{- end }}\n{{- end }}\n    \'\'\'\n    pass\n```\n{{- end }}\n{{- else if .System }}{{ .System }}\n{{- end }}<|END_OF_TURN_TOKEN|>\n{{- end }}\n{{- range .Messages }}\n{{- if eq .Role "system" }}\n{{- continue }}\n{{- end }}<|START_OF_TURN_TOKEN|>\n{{- if eq .Role "user" }}<|USER_TOKEN|>{{ .Content }}\n{{- if $.Tools }}<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>Write \'Action:\' followed by a json-formatted list of actions that you want to perform in order to produce a good response to the user\'s last input. You can use any of the supplied tools any number of times, but you should aim to execute the minimum number of necessary actions for the input. You should use the `directly-answer` tool if calling the other tools is unnecessary. The list of actions you want to call should be formatted as a list of json objects, for example:\n```json\n[\n    {\n        "tool_name": title of the tool in the specification,\n        "parameters": a dict of parameters to input into the tool as they are defined in the specs, or {} if it takes no parameters\n    }\n]```\n{{- end }}\n{{- else if eq .Role "assistant" }}<|CHATBOT_TOKEN|>\n{{- if .Content }}{{ .Content }}\n{{- else if .ToolCalls }}\nAction: ```json\n[\n{{- range .ToolCalls }}\n    {\n        "tool_name": "{{ .Function.Name }}",\n        "parameters": {{ .Function.Arguments }}\n    }\n{{- end }}\n]```\n{{- end }}\n{{- else if eq .Role "tool" }}<|SYSTEM_TOKEN|><results>\nconsole_output: {{ .Content }}\n</results>\n{{- end }}<|END_OF_TURN_TOKEN|>\n{{- end }}<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>\n',
    expected: {
      user: '<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hello, how are you?<|END_OF_TURN_TOKEN|><|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>\n',
      'user-assistant-user':
        "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hello, how are you?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>I'm doing great. How can I help you today?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>I'd like to show off how chat templating works!<|END_OF_TURN_TOKEN|><|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>\n",
      'system-user-assistant-user':
        "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>You are a helpful assistant.<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hello, how are you?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>I'm doing great. How can I help you today?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>I'd like to show off how chat templating works!<|END_OF_TURN_TOKEN|><|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>\n",
    },
  },
  'falcon-instruct': {
    template:
      '{{- range .Messages }}\n{{- if eq .Role "system" }}System: {{ .Content }}\n{{ continue }}\n{{- else if eq .Role "user" }}User:\n{{- else if eq .Role "assistant" }}Falcon:\n{{- end }}\n{{ .Content }}\n{{ end }}Falcon:\n',
    expected: {
      user: 'User:\nHello, how are you?\nFalcon:\n',
      'user-assistant-user':
        "User:\nHello, how are you?\nFalcon:\nI'm doing great. How can I help you today?\nUser:\nI'd like to show off how chat templating works!\nFalcon:\n",
      'system-user-assistant-user':
        "System: You are a helpful assistant.\nUser:\nHello, how are you?\nFalcon:\nI'm doing great. How can I help you today?\nUser:\nI'd like to show off how chat templating works!\nFalcon:\n",
    },
  },
  'gemma-instruct': {
    template:
      '{{- $system := "" }}\n{{- range .Messages }}\n{{- if eq .Role "system" }}\n{{- if not $system }}{{ $system = .Content }}\n{{- else }}{{ $system = printf "%s\\n\\n%s" $system .Content }}\n{{- end }}\n{{- continue }}\n{{- else if eq .Role "user" }}<start_of_turn>user\n{{- if $system }}\n{{ $system }}\n{{- $system = "" }}\n{{- end }}\n{{- else if eq .Role "assistant" }}<start_of_turn>model\n{{- end }}\n{{ .Content }}<end_of_turn>\n{{ end }}<start_of_turn>model\n',
    expected: {
      user: '<start_of_turn>user\nHello, how are you?<end_of_turn>\n<start_of_turn>model\n',
      'user-assistant-user':
        "<start_of_turn>user\nHello, how are you?<end_of_turn>\n<start_of_turn>model\nI'm doing great. How can I help you today?<end_of_turn>\n<start_of_turn>user\nI'd like to show off how chat templating works!<end_of_turn>\n<start_of_turn>model\n",
      'system-user-assistant-user':
        "<start_of_turn>user\nYou are a helpful assistant.\nHello, how are you?<end_of_turn>\n<start_of_turn>model\nI'm doing great. How can I help you today?<end_of_turn>\n<start_of_turn>user\nI'd like to show off how chat templating works!<end_of_turn>\n<start_of_turn>model\n",
    },
  },
  'gemma3-instruct': {
    template:
      '{{- range $i, $_ := .Messages }}\n{{- $last := eq (len (slice $.Messages $i)) 1 }}\n{{- if eq .Role "user" }}<start_of_turn>user\n{{- if and (eq $i 1) $.System }}\n{{ $.System }}\n{{ end }}\n{{ .Content }}<end_of_turn>\n{{ else if eq .Role "assistant" }}<start_of_turn>model\n{{ .Content }}<end_of_turn>\n{{ end }}\n{{- if $last }}<start_of_turn>model\n{{ end }}\n{{- end }}\n',
    expected: {
      user: '<start_of_turn>user\nHello, how are you?<end_of_turn>\n<start_of_turn>model\n\n',
      'user-assistant-user':
        "<start_of_turn>user\nHello, how are you?<end_of_turn>\n<start_of_turn>model\nI'm doing great. How can I help you today?<end_of_turn>\n<start_of_turn>user\nI'd like to show off how chat templating works!<end_of_turn>\n<start_of_turn>model\n\n",
      'system-user-assistant-user':
        "<start_of_turn>user\nYou are a helpful assistant.\n\nHello, how are you?<end_of_turn>\n<start_of_turn>model\nI'm doing great. How can I help you today?<end_of_turn>\n<start_of_turn>user\nI'd like to show off how chat templating works!<end_of_turn>\n<start_of_turn>model\n\n",
    },
  },
  'granite-instruct': {
    template:
      '{{- range .Messages }}\n{{- if eq .Role "system" }}System:\n{{- else if eq .Role "user" }}Question:\n{{- else if eq .Role "assistant" }}Answer:\n{{- end }}\n{{ .Content }}\n\n{{ end }}Answer:\n',
    expected: {
      user: 'Question:\nHello, how are you?\n\nAnswer:\n',
      'user-assistant-user':
        "Question:\nHello, how are you?\n\nAnswer:\nI'm doing great. How can I help you today?\n\nQuestion:\nI'd like to show off how chat templating works!\n\nAnswer:\n",
      'system-user-assistant-user':
        "System:\nYou are a helpful assistant.\n\nQuestion:\nHello, how are you?\n\nAnswer:\nI'm doing great. How can I help you today?\n\nQuestion:\nI'd like to show off how chat templating works!\n\nAnswer:\n",
    },
  },
  'llama2-chat': {
    template:
      '{{- $system := "" }}[INST] {{ range .Messages }}\n{{- if eq .Role "system" }}\n{{- if not $system }}{{ $system = .Content }}\n{{- else }}{{ $system = printf "%s\\n\\n%s" $system .Content }}\n{{- end }}\n{{- else if eq .Role "user" }}<<SYS>>\n{{- if $system }}\n{{ $system }}\n{{ $system = "" }}\n{{- end }}<</SYS>>\n\n{{ .Content }} [/INST]\n{{- else if eq .Role "assistant" }} {{ .Content }}</s><s>[INST] {{ end }}\n{{- end }}',
    expected: {
      user: '[INST] <<SYS>><</SYS>>\n\nHello, how are you? [/INST]',
      'user-assistant-user':
        "[INST] <<SYS>><</SYS>>\n\nHello, how are you? [/INST] I'm doing great. How can I help you today?</s><s>[INST] <<SYS>><</SYS>>\n\nI'd like to show off how chat templating works! [/INST]",
      'system-user-assistant-user':
        "[INST] <<SYS>>\nYou are a helpful assistant.\n<</SYS>>\n\nHello, how are you? [/INST] I'm doing great. How can I help you today?</s><s>[INST] <<SYS>><</SYS>>\n\nI'd like to show off how chat templating works! [/INST]",
    },
  },
  'llama3-instruct': {
    template:
      '{{- range .Messages }}<|start_header_id|>{{ .Role }}<|end_header_id|>\n\n{{ .Content }}<|eot_id|>\n{{- end }}<|start_header_id|>assistant<|end_header_id|>\n\n',
    expected: {
      user: '<|start_header_id|>user<|end_header_id|>\n\nHello, how are you?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
      'user-assistant-user':
        "<|start_header_id|>user<|end_header_id|>\n\nHello, how are you?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nI'm doing great. How can I help you today?<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nI'd like to show off how chat templating works!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
      'system-user-assistant-user':
        "<|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHello, how are you?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nI'm doing great. How can I help you today?<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nI'd like to show off how chat templating works!<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    },
  },
  magicoder: {
    template:
      '{{- $system := "" }}\n{{- range .Messages }}\n{{- if eq .Role "system" }}\n{{- if not $system }}{{ $system = .Content }}\n{{- else }}{{ $system = printf "%s\\n\\n%s" $system .Content }}\n{{- end }}\n{{- continue }}\n{{- else if eq .Role "user" }}\n{{- if $system }}{{ $system }}\n\n{{ $system = "" }}\n{{- end }}@@ Instruction\n{{- else if eq .Role "assistant" }}@@ Response\n{{- end }}\n{{ .Content }}\n\n{{ end }}@@ Response\n',
    expected: {
      user: '@@ Instruction\nHello, how are you?\n\n@@ Response\n',
      'user-assistant-user':
        "@@ Instruction\nHello, how are you?\n\n@@ Response\nI'm doing great. How can I help you today?\n\n@@ Instruction\nI'd like to show off how chat templating works!\n\n@@ Response\n",
      'system-user-assistant-user':
        "You are a helpful assistant.\n\n@@ Instruction\nHello, how are you?\n\n@@ Response\nI'm doing great. How can I help you today?\n\n@@ Instruction\nI'd like to show off how chat templating works!\n\n@@ Response\n",
    },
  },
  'mistral-instruct': {
    template:
      '[INST] {{ range $index, $_ := .Messages }}\n{{- if eq .Role "system" }}{{ .Content }}\n\n{{ else if eq .Role "user" }}{{ .Content }}[/INST]\n{{- else if eq .Role "assistant" }} {{ .Content }}</s>[INST] {{ end }}\n{{- end }}',
    expected: {
      user: '[INST] Hello, how are you?[/INST]',
      'user-assistant-user':
        "[INST] Hello, how are you?[/INST] I'm doing great. How can I help you today?</s>[INST] I'd like to show off how chat templating works![/INST]",
      'system-user-assistant-user':
        "[INST] You are a helpful assistant.\n\nHello, how are you?[/INST] I'm doing great. How can I help you today?</s>[INST] I'd like to show off how chat templating works![/INST]",
    },
  },
  openchat: {
    template:
      '{{- range .Messages }}GPT4 Correct\n{{- if eq .Role "system" }} System:\n{{- else if eq .Role "user" }} User:\n{{- else if eq .Role "assistant" }} Assistant:\n{{- end }} {{ .Content }}<|end_of_turn|>\n{{- end }}GPT4 Correct Assistant:',
    expected: {
      user: 'GPT4 Correct User: Hello, how are you?<|end_of_turn|>GPT4 Correct Assistant:',
      'user-assistant-user':
        "GPT4 Correct User: Hello, how are you?<|end_of_turn|>GPT4 Correct Assistant: I'm doing great. How can I help you today?<|end_of_turn|>GPT4 Correct User: I'd like to show off how chat templating works!<|end_of_turn|>GPT4 Correct Assistant:",
      'system-user-assistant-user':
        "GPT4 Correct System: You are a helpful assistant.<|end_of_turn|>GPT4 Correct User: Hello, how are you?<|end_of_turn|>GPT4 Correct Assistant: I'm doing great. How can I help you today?<|end_of_turn|>GPT4 Correct User: I'd like to show off how chat templating works!<|end_of_turn|>GPT4 Correct Assistant:",
    },
  },
  'phi-3': {
    template:
      '{{- range .Messages }}<|{{ .Role }}|>\n{{ .Content }}<|end|>\n{{ end }}<|assistant|>\n',
    expected: {
      user: '<|user|>\nHello, how are you?<|end|>\n<|assistant|>\n',
      'user-assistant-user':
        "<|user|>\nHello, how are you?<|end|>\n<|assistant|>\nI'm doing great. How can I help you today?<|end|>\n<|user|>\nI'd like to show off how chat templating works!<|end|>\n<|assistant|>\n",
      'system-user-assistant-user':
        "<|system|>\nYou are a helpful assistant.<|end|>\n<|user|>\nHello, how are you?<|end|>\n<|assistant|>\nI'm doing great. How can I help you today?<|end|>\n<|user|>\nI'd like to show off how chat templating works!<|end|>\n<|assistant|>\n",
    },
  },
  'solar-instruct': {
    template:
      '{{- range .Messages }}\n{{- if eq .Role "system" }}### System:\n{{- else if eq .Role "user" }}### User:\n{{- else if eq .Role "assistant" }}### Assistant:\n{{ .Content }}</s>\n\n{{ continue }}\n{{- end }}\n{{ .Content }}\n\n{{ end }}### Assistant:\n',
    expected: {
      user: '### User:\nHello, how are you?\n\n### Assistant:\n',
      'user-assistant-user':
        "### User:\nHello, how are you?\n\n### Assistant:\nI'm doing great. How can I help you today?</s>\n\n### User:\nI'd like to show off how chat templating works!\n\n### Assistant:\n",
      'system-user-assistant-user':
        "### System:\nYou are a helpful assistant.\n\n### User:\nHello, how are you?\n\n### Assistant:\nI'm doing great. How can I help you today?</s>\n\n### User:\nI'd like to show off how chat templating works!\n\n### Assistant:\n",
    },
  },
  'starcoder2-instruct': {
    template:
      '{{- $system := "" }}\n{{- range .Messages }}\n{{- if eq .Role "system" }}\n{{- if not $system }}{{ $system = .Content }}\n{{- else }}{{ $system = printf "%s\\n\\n%s" $system .Content }}\n{{- end }}\n{{- else if eq .Role "user" }}\n{{- if $system }}{{ $system }}\n\n{{ $system = "" }}\n{{- end }}### Instruction\n{{ .Content }}\n\n{{ else if eq .Role "assistant" }}### Response\n{{ .Content }}<|endoftext|>\n\n{{ end }}\n{{- end }}### Response\n',
    expected: {
      user: '### Instruction\nHello, how are you?\n\n### Response\n',
      'user-assistant-user':
        "### Instruction\nHello, how are you?\n\n### Response\nI'm doing great. How can I help you today?<|endoftext|>\n\n### Instruction\nI'd like to show off how chat templating works!\n\n### Response\n",
      'system-user-assistant-user':
        "You are a helpful assistant.\n\n### Instruction\nHello, how are you?\n\n### Response\nI'm doing great. How can I help you today?<|endoftext|>\n\n### Instruction\nI'd like to show off how chat templating works!\n\n### Response\n",
    },
  },
  vicuna: {
    template:
      '{{- $system := "" }}\n{{- range .Messages }}\n{{- if eq .Role "system" }}\n{{- if not $system }}{{ $system = .Content }}\n{{- else }}{{ $system = printf "%s\\n\\n%s" $system .Content }}\n{{- end }}\n{{- else if eq .Role "user" }}\n{{- if $system }}{{ $system }}\n\n{{ $system = "" }}\n{{- end }}USER: {{ .Content }}\n{{ else if eq .Role "assistant" }}ASSISTANT: {{ .Content }}</s>\n{{ end }}\n{{- end }}ASSISTANT:',
    expected: {
      user: 'USER: Hello, how are you?\nASSISTANT:',
      'user-assistant-user':
        "USER: Hello, how are you?\nASSISTANT: I'm doing great. How can I help you today?</s>\nUSER: I'd like to show off how chat templating works!\nASSISTANT:",
      'system-user-assistant-user':
        "You are a helpful assistant.\n\nUSER: Hello, how are you?\nASSISTANT: I'm doing great. How can I help you today?</s>\nUSER: I'd like to show off how chat templating works!\nASSISTANT:",
    },
  },
  zephyr: {
    template: '{{- range .Messages }}<|{{ .Role }}|>\n{{ .Content }}</s>\n{{ end }}<|assistant|>\n',
    expected: {
      user: '<|user|>\nHello, how are you?</s>\n<|assistant|>\n',
      'user-assistant-user':
        "<|user|>\nHello, how are you?</s>\n<|assistant|>\nI'm doing great. How can I help you today?</s>\n<|user|>\nI'd like to show off how chat templating works!</s>\n<|assistant|>\n",
      'system-user-assistant-user':
        "<|system|>\nYou are a helpful assistant.</s>\n<|user|>\nHello, how are you?</s>\n<|assistant|>\nI'm doing great. How can I help you today?</s>\n<|user|>\nI'd like to show off how chat templating works!</s>\n<|assistant|>\n",
    },
  },
};

describe("Ollama's bundled templates render as Ollama renders them", () => {
  for (const [name, { template, expected }] of Object.entries(templates)) {
    for (const [conversation, messages] of Object.entries(conversations)) {
      test(`${name}: ${conversation}`, () => {
        let prompt = renderPrompt(template, { messages });
        if (trailingSpace.has(name) && prompt.endsWith(' ')) prompt = prompt.slice(0, -1);
        expect(prompt).toBe(expected[conversation]);
      });
    }
  }
});
