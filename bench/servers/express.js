'use strict';
const http = require('node:http');
const express = require('express');
const { JSON_PATH } = require('../lib/shared');

/** Baseline: bare Express 5 with express.json(), answers {value: body.message}. */
module.exports = function start() {
  const app = express();
  app.use(express.json());
  app.post(JSON_PATH, (req, res) => {
    res.json({ value: req.body.message });
  });
  return http.createServer(app);
};
