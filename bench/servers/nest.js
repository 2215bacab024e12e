'use strict';
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const { Body, Controller, HttpCode, Module, Post } = require('@nestjs/common');

/**
 * Baseline: a minimal NestJS 12 app on Express (default body parser, no logger) with one @Post
 * controller returning {value: body.message}. Plain JS, so the decorators are applied by hand.
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

module.exports = async function start() {
  const app = await NestFactory.create(BenchModule, { logger: false });
  await app.init();
  return app.getHttpServer();
};
