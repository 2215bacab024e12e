// NAT's default ReWOO prompts (nvidia-nat-langchain, rewoo_agent), word for word: configs that do not
// set their own get the plans NAT users are used to. Python format strings: `{{` is a brace.

export const PLANNER_SYSTEM_PROMPT =
  '\n' +
  'For the following task, make plans that can solve the problem step by step. For each plan, indicate which external tool together with tool input to retrieve evidence. You can store the evidence into a placeholder #E that can be called by later tools. (Plan, #E1, Plan, #E2, Plan, ...)\n' +
  '\n' +
  'The following tools and respective requirements are available to you:\n' +
  '\n' +
  '{tools}\n' +
  '\n' +
  'The tool calls you make should be one of the following: [{tool_names}]\n' +
  '\n' +
  'You are not required to use all the tools listed. Choose only the ones that best fit the needs of each plan step.\n' +
  '\n' +
  'Your output must be a JSON array where each element represents one planning step. Each step must be an object with exactly two keys:\n' +
  '\n' +
  '1. "plan": A string that describes in detail the action or reasoning for that step.\n' +
  '\n' +
  '2. "evidence": An object representing the external tool call associated with that plan step. This object must have the following keys:\n' +
  '\n' +
  '   -"placeholder": A string that identifies the evidence placeholder ("#E1", "#E2", ...). The numbering should be sequential based on the order of steps.\n' +
  '\n' +
  '   -"tool": A string specifying the name of the external tool used.\n' +
  '\n' +
  '   -"tool_input": The input to the tool. This can be a string, array, or object, depending on the requirements of the tool. Be careful about type assumptions because the output of former tools might contain noise.\n' +
  '\n' +
  'Important instructions:\n' +
  '\n' +
  'Do not output any additional text, comments, or markdown formatting.\n' +
  '\n' +
  'Do not include any explanation or reasoning text outside of the JSON array.\n' +
  '\n' +
  'The output must be a valid JSON array that can be parsed directly.\n' +
  '\n' +
  'Here is an example of how a valid JSON output should look:\n' +
  '\n' +
  '\n' +
  '```json\n' +
  '[\n' +
  '  {{\n' +
  '    "plan": "Find Alex\'s schedule on Sep 25, 2025",\n' +
  '    "evidence": {{\n' +
  '      "placeholder": "#E1",\n' +
  '      "tool": "search_calendar",\n' +
  '      "tool_input": ["Alex", "09/25/2025"]\n' +
  '    }}\n' +
  '  }},\n' +
  '  {{\n' +
  '    "plan": "Find Bill\'s schedule on sep 25, 2025",\n' +
  '    "evidence": {{\n' +
  '      "placeholder": "#E2",\n' +
  '      "tool": "search_calendar",\n' +
  '      "tool_input": ["Bill", "09/25/2025"]\n' +
  '    }}\n' +
  '  }},\n' +
  '  {{\n' +
  '    "plan": "Suggest a time for 1-hour meeting given Alex\'s and Bill\'s schedule.",\n' +
  '    "evidence": {{\n' +
  '      "placeholder": "#E3",\n' +
  '      "tool": "llm_chat",\n' +
  '      "tool_input": "Find a common 1-hour time slot for Alex and Bill given their schedules. Alex\'s schedule: #E1; Bill\'s schedule: #E2?"\n' +
  '    }}\n' +
  '  }}\n' +
  ']\n' +
  '```\n' +
  '\n' +
  'Begin!\n';

export const PLANNER_USER_PROMPT =
  '\n' + 'Previous conversation history:\n' + '{chat_history}\n' + '\n' + 'task: {task}\n';

export const SOLVER_SYSTEM_PROMPT =
  '\n' +
  'Solve the following task or problem. To solve the problem, we have made some Plans ahead and retrieved corresponding Evidence to each Plan. Use them with caution since long evidence might contain irrelevant information.\n' +
  '\n' +
  'Now solve the question or task according to provided Evidence above. Respond with the answer\n' +
  'directly with no extra words.\n' +
  '\n';

export const SOLVER_USER_PROMPT = '\n' + 'plan: {plan}\n' + 'task: {task}\n' + '\n' + 'Response:\n';
