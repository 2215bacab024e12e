'use strict';
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const { Body, Controller, Get, HttpCode, Module, Param, Post } = require('@nestjs/common');

/**
 * Baseline: a minimal NestJS 12 app on Express (default body parser, no logger) with one @Post
 * controller returning {value: body.message}. Plain JS, so the decorators are applied by hand.
 * Variant `get`: one @Get('executions/:id') route instead, answering a canned body the size and
 * shape of Interlude's status poll of a waiting execution (the status-poll baseline).
 */
class BenchController {
  answer(body) {
    return { value: body.message };
  }
}
const answer = Object.getOwnPropertyDescriptor(BenchController.prototype, 'answer');
Post()(BenchController.prototype, 'answer', answer);
HttpCode(200)(BenchController.prototype, 'answer', answer);
Body()(BenchController.prototype, 'answer', 0);
Controller('v1/workflow')(BenchController);

class BenchModule {}
Module({ controllers: [BenchController] })(BenchModule);

const INTERACTION_ID = '00000000-0000-4000-8000-000000000000';
const PROMPT = {
  input_type: 'text',
  text: 'Your name?',
  timeout: null,
  error: 'This prompt is no longer available.',
  placeholder: null,
  required: true,
};
class StatusController {
  status(id) {
    return {
      execution_id: id,
      status: 'interaction_required',
      interaction_id: INTERACTION_ID,
      prompt: PROMPT,
      response_url: `/executions/${id}/interactions/${INTERACTION_ID}/response`,
    };
  }
}
const status = Object.getOwnPropertyDescriptor(StatusController.prototype, 'status');
Get(':id')(StatusController.prototype, 'status', status);
Param('id')(StatusController.prototype, 'status', 0);
Controller('executions')(StatusController);

class StatusModule {}
Module({ controllers: [StatusController] })(StatusModule);

/**
 * Variant `info`: the same route with a pino-http line per request at info (what nestjs-pino mounts), lines
 * going to /dev/null like Interlude's `echo-info`: the bare app with logging on.
 */
function requestLogger() {
  const { pino } = require('pino');
  const pinoHttp = require('pino-http');
  return pinoHttp({ logger: pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false })) });
}

module.exports = async function start(variant) {
  const logged = variant === 'info';
  const module = variant === 'get' ? StatusModule : BenchModule;
  const app = await NestFactory.create(module, { logger: false });
  if (logged) app.use(requestLogger());
  await app.init();
  return app.getHttpServer();
};
