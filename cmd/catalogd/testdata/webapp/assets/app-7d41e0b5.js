// The test app's routes, by path: /login, /signup?invite_token=,
// /reset?reset_token= and / (who is signed in; run a query; sign out).
(function () {
  var app = document.getElementById('app');
  var params = new URLSearchParams(window.location.search);

  function actor() {
    var m = document.cookie.match(/(?:^|; )actor=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : '';
  }

  function form(fields, button, onSubmit) {
    var html = '<form id="form">';
    fields.forEach(function (f) {
      html += '<label>' + f + ' <input id="' + f + '" name="' + f + '"' + (f === 'password' ? ' type="password"' : '') + '></label>';
    });
    html += '<button id="submit" type="submit">' + button + '</button><p id="error"></p></form>';
    app.innerHTML = html;
    document.getElementById('form').addEventListener('submit', function (ev) {
      ev.preventDefault();
      var values = {};
      fields.forEach(function (f) { values[f] = document.getElementById(f).value; });
      onSubmit(values);
    });
  }

  function post(path, body) {
    return fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then(function (res) {
      if (res.ok) return res;
      return res.json().then(function (e) { throw new Error(e.message || res.status); });
    });
  }

  function graphql(query, variables) {
    return fetch('/api/v2/graphql', {
      method: 'POST',
      credentials: 'include',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: query, variables: variables || {} }),
    }).then(function (res) {
      return res.text().then(function (text) { return { status: res.status, body: text }; });
    });
  }
  window.graphql = graphql;

  function fail(err) { document.getElementById('error').textContent = String(err.message || err); }

  var path = window.location.pathname;
  if (path === '/login') {
    form(['username', 'password'], 'Sign in', function (v) {
      post('/logIn', v).then(function () { window.location.href = params.get('redirect_uri') || '/'; }, fail);
    });
  } else if (path === '/signup') {
    form(['fullName', 'email', 'title', 'password'], 'Sign up', function (v) {
      v.inviteToken = params.get('invite_token');
      post('/signUp', v).then(function () {
        return graphql('mutation($t: String!) { acceptRole(input: {inviteToken: $t}) }', { t: v.inviteToken });
      }).then(function () { window.location.href = '/'; }, fail);
    });
  } else if (path === '/reset') {
    form(['email', 'password'], 'Reset', function (v) {
      v.resetToken = params.get('reset_token');
      post('/resetNativeUserCredentials', v).then(function () { window.location.href = '/'; }, fail);
    });
  } else if (!actor()) {
    window.location.href = '/login?redirect_uri=' + encodeURIComponent(path);
  } else {
    app.innerHTML = '<p>Signed in as <span id="whoami"></span></p>' +
      '<button id="me">Who am I?</button> <a id="logout" href="/logOut">Sign out</a><pre id="result"></pre>';
    document.getElementById('whoami').textContent = actor();
    document.getElementById('me').addEventListener('click', function () {
      graphql('{ me { corpUser { urn } } }').then(function (r) {
        document.getElementById('result').textContent = r.status + ' ' + r.body;
      });
    });
  }
})();
