/*
 * The demo's scenario (see demo.h and doc/script.md). The lead spawns
 * alice, who writes and runs a small program, and bob, who must have his
 * refactoring plan approved — by the person, with F5 — before he may edit.
 */
#include "config.h"

#include "demo.h"

static const char demo_json[] =
"{\"agents\": {\n"
" \"lead\": [\n"
"  {\"text\": \"Hello! I'll show you a team at work. alice will write a "
"small program; bob will refactor it, but he must get his plan approved "
"before he may touch a file.\", \"chunk_chars\": 6, \"chunk_delay_ms\": 25,\n"
"   \"tools\": [{\"name\": \"spawn_teammate\", \"input\": {\"name\": "
"\"alice\", \"role\": \"coder\", \"prompt\": \"Create hello.py with a "
"greeting function and run it.\"}}]},\n"
"  {\"tools\": [{\"name\": \"spawn_teammate\", \"input\": {\"name\": \"bob\", "
"\"role\": \"refactorer\", \"plan_required\": true, \"prompt\": \"Rename "
"greeting() to greet() in hello.py. Submit a plan first.\"}}]},\n"
"  {\"text\": \"Both are working: watch their panes on the right. bob's "
"plan will appear in the requests table below — press F5 to approve it, "
"or F6 to reject it with feedback.\", \"chunk_chars\": 6, "
"\"chunk_delay_ms\": 25},\n"
"  {\"text\": \"Noted.\"},\n"
"  {\"text\": \"Good work, team.\"},\n"
"  {\"text\": \"When you have seen enough, F9 asks a teammate to shut "
"down and F10 quits.\", \"chunk_chars\": 6, \"chunk_delay_ms\": 25},\n"
"  {\"text\": \"Noted.\"}, {\"text\": \"Noted.\"}, {\"text\": \"Noted.\"},\n"
"  {\"text\": \"Noted.\"}, {\"text\": \"Noted.\"}, {\"text\": \"Noted.\"}\n"
" ],\n"
" \"alice\": [\n"
"  {\"text\": \"I'll write hello.py first.\", \"chunk_chars\": 4, "
"\"chunk_delay_ms\": 40, \"tools\": [{\"name\": \"write_file\", \"input\": "
"{\"path\": \"hello.py\", \"content\": \"def greeting(name):\\n    return "
"f\\\"Hello, {name}!\\\"\\n\\n\\nprint(greeting(\\\"huddle\\\"))\\n\"}}]},\n"
"  {\"text\": \"Now let me check it.\", \"chunk_chars\": 4, "
"\"chunk_delay_ms\": 40, \"tools\": [{\"name\": \"bash\", \"input\": "
"{\"command\": \"cat hello.py && wc -l hello.py\"}}]},\n"
"  {\"text\": \"hello.py is ready. Telling the lead.\", \"chunk_chars\": 4, "
"\"chunk_delay_ms\": 40, \"tools\": [{\"name\": \"send_message\", \"input\": "
"{\"to\": \"lead\", \"content\": \"hello.py is written and checked.\"}}]},\n"
"  {\"text\": \"Done. Waiting for more work.\", \"chunk_chars\": 4, "
"\"chunk_delay_ms\": 40},\n"
"  {\"text\": \"Wrapping up.\", \"tools\": [{\"name\": \"shutdown_response\", "
"\"input\": {\"request_id\": \"{{request_id}}\", \"approve\": true, "
"\"reason\": \"my work is done\"}}]}\n"
" ],\n"
" \"bob\": [\n"
"  {\"delay_ms\": 2500, \"text\": \"Let me read the code before I plan.\", "
"\"chunk_chars\": 4, \"chunk_delay_ms\": 40, \"tools\": [{\"name\": "
"\"read_file\", \"input\": {\"path\": \"hello.py\"}}]},\n"
"  {\"text\": \"Here is my plan.\", \"chunk_chars\": 4, \"chunk_delay_ms\": "
"40, \"tools\": [{\"name\": \"submit_plan\", \"input\": {\"plan\": \"1. "
"Rename greeting() to greet() in hello.py\\n2. Update the call\\n3. Show "
"the result\"}}]},\n"
"  {\"text\": \"Renaming the function.\", \"chunk_chars\": 4, "
"\"chunk_delay_ms\": 40, \"tools\": [{\"name\": \"edit_file\", \"input\": "
"{\"path\": \"hello.py\", \"old_text\": \"def greeting(\", \"new_text\": "
"\"def greet(\"}}]},\n"
"  {\"tools\": [{\"name\": \"edit_file\", \"input\": {\"path\": \"hello.py\", "
"\"old_text\": \"print(greeting(\", \"new_text\": \"print(greet(\"}}]},\n"
"  {\"tools\": [{\"name\": \"bash\", \"input\": {\"command\": \"cat "
"hello.py\"}}]},\n"
"  {\"text\": \"Refactor done: greeting() is now greet().\", "
"\"chunk_chars\": 4, \"chunk_delay_ms\": 40},\n"
"  {\"text\": \"Stopping.\", \"tools\": [{\"name\": \"shutdown_response\", "
"\"input\": {\"request_id\": \"{{request_id}}\", \"approve\": true}}]}\n"
" ],\n"
" \"*\": [{\"text\": \"Nothing scripted for me.\"}]\n"
"}}\n";

const char *
demo_scenario(void)
{
	return demo_json;
}
