// Secrets are masked where a line comes in: one test per token format, the length kept, the
// look-alikes (tokenizer special tokens, counts, placeholders) left alone.
#include "core/parse/secrets.h"

#include <gtest/gtest.h>

#include "core/analyze/diagnoser.h"
#include "core/parse/log_line.h"

namespace denpex::core {
namespace {

std::string masked(std::string s) {
  maskSecrets(s);
  return s;
}

TEST(Secrets, EachTokenFormatIsMaskedKeepingItsLengthAndPrefix) {
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      // Hugging Face
      {"token hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 used",
       "token hf_************************************ used"},
      // OpenAI (legacy and project keys)
      {"OPENAI key sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL.",
       "OPENAI key sk-************************************************."},
      {"sk-proj-AbCdEf0123456789_ghIJKLmnop-qrst", "sk-*************************************"},
      // AWS access key id, and a secret key assignment
      {"using AKIAIOSFODNN7EXAMPLE for s3", "using AKIA**************** for s3"},
      {"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
       "aws_secret_access_key = ****************************************"},
      // W&B: the environment variable and the login command
      {"WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567 python train.py",
       "WANDB_API_KEY=**************************************** python train.py"},
      {"$ wandb login 0123456789abcdef0123456789abcdef01234567", "$ wandb login ****************************************"},
      // Authorization headers
      {"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "Authorization: Bearer ****************************************"},
      {"headers={'authorization': 'Basic dXNlcjpwYXNzd29yZA=='}", "headers={'authorization': 'Basic ********************'}"},
      // A password in a URL, and a token as a URL's user
      {"git clone https://alice:s3cr3t-Pa55@github.com/org/repo", "git clone https://alice:***********@github.com/org/repo"},
      {"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x",
       "https://****************************************@github.com/x"},
      // Generic assignments and flags
      {"api_key='abcdef0123456789'", "api_key='****************'"},
      {"{\"password\": \"hunter2\"}", "{\"password\": \"*******\"}"},
      {"HF_TOKEN=hf_short_but_named", "HF_TOKEN=******************"},
      {"python train.py --hub_token abcdefgh12345678 --fp16", "python train.py --hub_token **************** --fp16"},
      {"db_passwd: x", "db_passwd: *"},
  };
  for (const auto& c : cases) {
    std::string got = masked(c.in);
    EXPECT_EQ(got, c.out) << c.in;
    EXPECT_EQ(got.size(), std::string(c.in).size()) << c.in;
  }
}

TEST(Secrets, LookAlikesAreLeftAlone) {
  for (const char* s : {
           "pad_token='<pad>', eos_token: </s>, bos_token=None",                 // a tokenizer's special tokens
           "max_new_tokens=512 tokens/s=1800.5 num_tokens: 4096",                 // counts
           "Missing key(s) in state_dict: \"encoder.layer.0.weight\"",           // state_dict keys
           "KeyError: 'input_ids'",                                              // an exception
           "token: 12345",                                                       // a count, not a token
           "HF_TOKEN=$HF_TOKEN api_key: ${API_KEY} password=<redacted>",          // placeholders
           "commit 0123456789abcdef0123456789abcdef01234567",                    // a git hash is not a W&B key
           "see https://huggingface.co/docs/hub/security-tokens",                 // a URL without credentials
           "step 3 | loss 0.41 | grad_norm 1.2",
       }) {
    EXPECT_EQ(masked(s), s);
  }
}

TEST(Secrets, TheTriggerWordsCoverEveryForm) {
  // mayHoldSecret() is the gate: a line without one of its words is never looked at.
  EXPECT_FALSE(mayHoldSecret("step 3 | loss 0.41 | grad_norm 1.2"));
  for (const char* s : {"hf_x", "SK-x", "AKIA", "Bearer", "Authorization", "http://", "API_KEY", "Token", "secret", "PASSWORD",
                        "pwd", "wandb login", "ghp_"})
    EXPECT_TRUE(mayHoldSecret(s)) << s;
}

TEST(Secrets, TheDiagnosisNeverHoldsThem) {
  // Masked at ingress: evidence, the exception's message and the verdict see only the mask.
  RuleSet rules;
  rules.add(builtinRuleSources(), RuleOrigin::kShipped);
  Matcher matcher(rules);
  std::string log =
      "Traceback (most recent call last):\n"
      "  File \"upload.py\", line 3, in <module>\n"
      "RuntimeError: push failed for https://bob:Pa55w0rd!@hub.example.com with HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n";
  Diagnosis d = diagnoseText(rules, matcher, log, "upload.log");
  ASSERT_FALSE(d.findings.empty());
  std::string everything = verdict(d.findings[0]) + d.findings[0].exceptionMessage;
  for (const auto& e : d.findings[0].evidence) everything += e.text;
  EXPECT_EQ(everything.find("Pa55w0rd"), std::string::npos) << everything;
  EXPECT_EQ(everything.find("AbCdEfGh"), std::string::npos) << everything;
  EXPECT_NE(everything.find("HF_TOKEN=****"), std::string::npos) << everything;
}

}  // namespace
}  // namespace denpex::core
