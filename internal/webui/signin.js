// Signs in from the GraphQL explorer's page: POST /logIn sets the session
// cookies, with which the explorer's requests are then authenticated; the
// page is reloaded so that the explorer fetches the schema again.
(function () {
  var form = document.getElementById('signin');
  if (!form) return;
  var out = document.getElementById('signin-error');
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    out.textContent = '';
    var body = JSON.stringify({ username: form.elements.username.value, password: form.elements.password.value });
    fetch(new URL(form.dataset.login, window.location.href), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: body,
    }).then(function (res) {
      if (res.ok) {
        window.location.reload();
        return null;
      }
      return res.json().then(
        function (e) { out.textContent = (e && e.message) || 'Sign-in failed (HTTP ' + res.status + ')'; },
        function () { out.textContent = 'Sign-in failed (HTTP ' + res.status + ')'; });
    }, function (err) {
      out.textContent = 'Sign-in failed: ' + err;
    });
  });
})();
