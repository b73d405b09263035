import { runDebate, openai } from "agon-debate";

const seat = (id) => ({ id, model: "openai/smollm2" });
const spec = { question: "Walk or cycle to work?", panel: ["a", "b", "c"].map(seat), judge: seat("judge"),
               protocol: { name: "rotating-challenger" }, rounds: 1, limits: { max_tokens: 60, judge_max_tokens: 120 } };
const complete = openai({ baseUrl: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const transcript = await runDebate(spec, complete, {
  onEvent: ({ kind }) => kind.tag === "turn-completed" && console.log(`[${kind.val.speaker}] ${kind.val.text}\n`),
});
console.log(`outcome: ${transcript.outcome.kind}\n\n${transcript.synthesis?.text ?? transcript.outcome.reason}`);
